// Whether a failed call may have reached the node: what was sent may have arrived.
import { BaseError, HttpRequestError, RpcRequestError, TimeoutError } from 'viem'
import { ChainUnavailableError } from '../../../errors/chainUnavailableError.ts'

/** No answer from any node (as opposed to a node's refusal): what was sent may have arrived. */
export function isTransportError(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause)
    if (e instanceof ChainUnavailableError) return true
  if (!(err instanceof BaseError)) return false
  if (err.walk((e) => e instanceof RpcRequestError)) return false
  return Boolean(err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
}
