// The error the in-process x402 facilitator answers when its own key (in a token, in KMS) could
// not sign: 503 (0x40) with Retry-After, as a relayer's signer failure answers. It is thrown before
// anything is sent: the payment was not settled, and the intent it pays for was not broadcast.
import { GatewayError } from '../errors/gatewayError.ts'
import { Status } from '../status/statusCodes.ts'

export function facilitatorSignerUnavailable(operation: 'verify' | 'settle', cause: unknown): GatewayError {
  const why =
    cause instanceof GatewayError
      ? (cause.details ?? cause.shortMessage)
      : cause instanceof Error
        ? cause.message
        : String(cause)
  return new GatewayError("The payment facilitator's signer is unavailable", {
    code: 'FACILITATOR_SIGNER_UNAVAILABLE',
    status: Status.UNAVAILABLE,
    details: `x402 ${operation} was not done: the facilitator's key could not sign (${why}); nothing was sent, retry later`,
    headers: { 'retry-after': '5' },
    cause,
  })
}
