// Sorts a failure of the Sui gRPC client into what the gateway answers: the node could not be
// reached or did not answer in time (0xF4, 503, the same path as EVM), or it refused the call (0xF0).
import { RpcError } from '@mysten/sui/grpc'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { Status } from '../../status/statusCodes.ts'

// INTERNAL is what the grpc-web transport reports for a failed fetch (connection refused, reset);
// CANCELLED and DEADLINE_EXCEEDED for our own timeout signal.
const unreachableCodes = new Set([
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'CANCELLED',
  'INTERNAL',
  'UNKNOWN',
  'RESOURCE_EXHAUSTED',
  'DATA_LOSS',
])

export function classifySuiError(err: unknown, chainId: string, what: string): GatewayError {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof GatewayError) return e
    if (e instanceof RpcError) {
      if (unreachableCodes.has(e.code))
        return new ChainUnavailableError(chainId, { cause: err, details: `${what}: ${e.code}` })
      return new GatewayError(`The chain rejected the ${what}`, {
        code: 'CHAIN_CALL_FAILED',
        status: Status.GATEWAY_FAILURE,
        cause: err,
        details: `${e.code}: ${e.message}`,
      })
    }
    if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError'))
      return new ChainUnavailableError(chainId, { cause: err, details: `${what}: no answer in time` })
  }
  return new GatewayError(`The chain rejected the ${what}`, {
    code: 'CHAIN_CALL_FAILED',
    status: Status.GATEWAY_FAILURE,
    cause: err,
    details: err instanceof Error ? err.message : String(err),
  })
}
