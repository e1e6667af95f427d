// Every call to the Sui node goes through here: one deadline, one classification of its failure,
// the endpoint's counters and the RPC metrics.
import { failureKind } from '../../metrics/createMetrics.ts'
import { classifySuiError } from './classifySuiError.ts'
import type { SuiContext } from './suiContext.ts'

export async function callSui<T>(
  ctx: SuiContext,
  method: string,
  what: string,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const started = performance.now()
  const seconds = () => (performance.now() - started) / 1000
  ctx.endpoint.requests++
  const signal = AbortSignal.timeout(ctx.rpcTimeoutMs)
  try {
    const result = await fn(signal)
    ctx.endpoint.lastLatencyMs = Math.round(performance.now() - started)
    ctx.rpcRecorder?.observeRpc({ chain: ctx.chainId, method, seconds: seconds() })
    return result
  } catch (err) {
    ctx.endpoint.failures++
    const classified = classifySuiError(err, ctx.chainId, what)
    ctx.rpcRecorder?.observeRpc({
      chain: ctx.chainId,
      method,
      seconds: seconds(),
      failure: failureKind(classified, signal.aborted),
    })
    ctx.endpoint.lastError = classified.details ?? classified.shortMessage
    throw classified
  }
}
