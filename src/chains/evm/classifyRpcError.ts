// Sorts a viem failure into what the gateway answers: the chain could not be reached (0xF4), or
// the contract misbehaved (0xF0). Reverts with decodable data are handled before this is called.
import { BaseError, HttpRequestError, RpcRequestError, TimeoutError, WebSocketRequestError } from 'viem'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { Status } from '../../status/statusCodes.ts'

export function classifyRpcError(err: unknown, chainId: string, what: string): GatewayError {
  // The endpoint pool's own verdicts reach us wrapped by viem's transport layer.
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) if (e instanceof GatewayError) return e
  const unreachable =
    err instanceof BaseError &&
    err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError)
  if (unreachable) return new ChainUnavailableError(chainId, { cause: err })
  const rpcError = err instanceof BaseError && err.walk((e) => e instanceof RpcRequestError)
  return new GatewayError(`The chain rejected the ${what}`, {
    code: 'CHAIN_CALL_FAILED',
    status: Status.GATEWAY_FAILURE,
    cause: err,
    details:
      err instanceof BaseError ? (rpcError ? (rpcError as BaseError).shortMessage : err.shortMessage) : undefined,
  })
}
