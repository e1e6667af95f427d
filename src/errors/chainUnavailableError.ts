// The chain's RPC endpoint could not be reached or did not answer in time (0xF4, 503).
import { Status } from '../status/statusCodes.ts'
import { GatewayError } from './gatewayError.ts'

export class ChainUnavailableError extends GatewayError {
  override name = 'ChainUnavailableError'

  constructor(
    chainId: string,
    params: { cause?: unknown; details?: string | undefined; retryAfterSeconds?: number | undefined } = {},
  ) {
    super(`Chain ${chainId} is unreachable or did not answer in time`, {
      code: 'CHAIN_UNAVAILABLE',
      status: Status.CHAIN_UNREACHABLE,
      cause: params.cause,
      ...(params.details ? { details: params.details } : {}),
      headers: { 'retry-after': String(params.retryAfterSeconds ?? 2) },
    })
  }
}
