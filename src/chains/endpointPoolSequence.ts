// Calls that must reach one node in one request, in their order (a relayer's transactions in
// nonce order): to the best endpoint, on to the next only when none of them got an answer.
import type { RpcCall } from './createJsonRpcClient.ts'
import type { EndpointPoolContext } from './endpointPoolContext.ts'
import { noEndpointError, orderEndpoints, recordFailure, recordSuccess, verifyChainId } from './endpointStanding.ts'
import { failureKind, isTransportFailure } from './rpcFailures.ts'

export async function sequence(
  ctx: EndpointPoolContext,
  calls: readonly RpcCall[],
): Promise<PromiseSettledResult<unknown>[]> {
  const started = performance.now()
  let answers: PromiseSettledResult<unknown>[] | undefined
  let lastError: unknown
  for (const e of orderEndpoints(ctx, Date.now())) {
    try {
      if (!e.verified && !(await verifyChainId(ctx, e))) continue
    } catch (err) {
      if (!isTransportFailure(err)) {
        answers = calls.map(() => ({ status: 'rejected', reason: err }))
        break
      }
      recordFailure(ctx, e, err)
      lastError = err
      continue
    }
    const tried = await Promise.allSettled(e.sequence(calls))
    const unanswered = tried.find(
      (a): a is PromiseRejectedResult => a.status === 'rejected' && isTransportFailure(a.reason),
    )
    if (unanswered && tried.every((a) => a.status === 'rejected' && isTransportFailure(a.reason))) {
      recordFailure(ctx, e, unanswered.reason)
      lastError = unanswered.reason
      continue
    }
    recordSuccess(ctx, e, unanswered ? undefined : performance.now() - started)
    answers = tried
    break
  }
  const settled =
    answers ?? calls.map(() => ({ status: 'rejected' as const, reason: lastError ?? noEndpointError(ctx) }))
  const seconds = (performance.now() - started) / 1000
  calls.forEach((c, i) => {
    const a = settled[i]!
    ctx.rpcRecorder?.observeRpc({
      chain: ctx.chainId,
      method: c.method,
      seconds,
      ...(a.status === 'rejected' ? { failure: failureKind(a.reason) } : {}),
    })
  })
  return settled
}
