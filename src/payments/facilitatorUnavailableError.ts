// The x402 facilitator could not be reached or did not answer (0xF4, 503 with Retry-After):
// nothing was run, and a payment it may have been settling stays reserved for recovery.
import { GatewayError } from '../errors/gatewayError.ts'
import { Status } from '../status/statusCodes.ts'

export class FacilitatorUnavailableError extends GatewayError {
  override name = 'FacilitatorUnavailableError'

  constructor(
    operation: 'supported' | 'verify' | 'settle',
    params: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super('The payment facilitator is unreachable or did not answer in time', {
      code: 'FACILITATOR_UNAVAILABLE',
      status: Status.CHAIN_UNREACHABLE,
      cause: params.cause,
      details: `x402 ${operation} could not be completed; retry later`,
      headers: { 'retry-after': String(params.retryAfterSeconds ?? 5) },
    })
  }
}
