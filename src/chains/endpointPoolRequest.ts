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
    rpcRecorder.observeRpc({
      chain: ctx.chainId,
      method: args.method,
      seconds: (performance.now() - started) / 1000,
      failure: failureKind(err),
    })
    throw err
  }
}

/** Calls asked of the node only, never changing its state: safe to ask twice. */
const writes = new Set(['eth_sendRawTransaction', 'eth_sendTransaction'])

async function requestWithFailover(ctx: EndpointPoolContext, args: RpcCall): Promise<unknown> {
  let lastError: unknown
  const ordered = orderEndpoints(ctx, Date.now())
  // With one endpoint there is nowhere to fail over to: a read that met a dropped connection or a
  // 5xx is asked once more before the request fails (a write never is: the relayer decides that).
  // One that timed out is not: a node that did not answer within RPC_TIMEOUT_MS is not waited for
  // twice (a hung node held every request for two deadlines).
  const once = ordered.length === 1 && !writes.has(args.method)
  if (once) ordered.push(ordered[0]!)
  for (const [i, e] of ordered.entries()) {
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
      if (once && i === 0 && failureKind(err) === 'timeout') break
    }
  }
  throw lastError ?? noEndpointError(ctx)
}
