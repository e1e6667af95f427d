// One call through the pool: to the best endpoint, on to the next while none answers; timed for
// metrics, failover included.
import type { RpcCall } from './createJsonRpcClient.ts'
import type { EndpointPoolContext } from './endpointPoolContext.ts'
import { noEndpointError, orderEndpoints, recordFailure, recordSuccess, verifyChainId } from './endpointStanding.ts'
import { failureKind, isTransportFailure } from './rpcFailures.ts'

export async function request(ctx: EndpointPoolContext, args: RpcCall): Promise<unknown> {
  const { rpcRecorder } = ctx
  if (!rpcRecorder) return requestWithFailover(ctx, args)
  const started = performance.now()
  try {
    const result = await requestWithFailover(ctx, args)
    rpcRecorder.observeRpc({ chain: ctx.chainId, method: args.method, seconds: (performance.now() - started) / 1000 })
    return result
  } catch (err) {
    rpcRecorder.observeRpc({ chain: ctx.chainId, method: args.method, seconds: (performance.now() - started) / 1000, failure: failureKind(err) })
    throw err
  }
}

async function requestWithFailover(ctx: EndpointPoolContext, args: RpcCall): Promise<unknown> {
  let lastError: unknown
  for (const e of orderEndpoints(ctx, Date.now())) {
    try {
      if (!e.verified && !(await verifyChainId(ctx, e))) continue
      const started = performance.now()
      const result = await e.send(args)
      recordSuccess(ctx, e, performance.now() - started)
      return result
    } catch (err) {
      if (!isTransportFailure(err)) {
        // The node answered (a revert, a rejected transaction): that is its answer, not a fault.
        recordSuccess(ctx, e, undefined)
        throw err
      }
      recordFailure(ctx, e, err)
      lastError = err
    }
  }
  throw lastError ?? noEndpointError(ctx)
}
