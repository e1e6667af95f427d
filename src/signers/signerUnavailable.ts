// The error every relayer-key backend throws when it cannot sign now (a KMS call failed or timed
// out, a token refused or did not answer): 503 (0x40) with Retry-After. Runtimes sign before the
// journal records a transaction, so this leaves no record claiming an unsigned one.
import { GatewayError } from '../errors/gatewayError.ts'
import { Status } from '../status/statusCodes.ts'

export function signerUnavailable(details: string, cause?: unknown): GatewayError {
  return new GatewayError("The relayer's signer is unavailable", {
    code: 'SIGNER_UNAVAILABLE',
    status: Status.UNAVAILABLE,
    details,
    headers: { 'retry-after': '5' },
    cause,
  })
}
