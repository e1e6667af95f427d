// A KMS call that failed or timed out, as the 503 (0x40) every signer backend answers with. A call
// made for a request (Sign) tells the client which call failed and why, never the key id or ARN (it
// names the operator's account and key): the key id is in the error's cause, which the error
// handler logs. GetPublicKey runs at start-up only, where the operator reads the key id it names.
import type { GatewayError } from '../errors/gatewayError.ts'
import { signerUnavailable } from './signerUnavailable.ts'

export function kmsUnavailable({
  call,
  keyId,
  cause,
}: {
  call: 'GetPublicKey' | 'Sign'
  keyId: string
  cause: unknown
}): GatewayError {
  const reason = (cause as Error)?.name ?? 'error'
  const logged = new Error(`KMS ${call} for key ${keyId} failed: ${reason}`, { cause })
  return signerUnavailable(call === 'Sign' ? `KMS ${call} failed: ${reason}` : logged.message, logged)
}
