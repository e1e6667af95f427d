// One RPC call of the Solana adapter, tried on each endpoint in turn while they are unreachable;
// every attempt is timed for the metrics and counted in the endpoint's view (/chains).
import type { Rpc, SolanaRpcApi } from '@solana/kit'
import { ChainUnavailableError } from '../../../errors/chainUnavailableError.ts'
import type { GatewayError } from '../../../errors/gatewayError.ts'
import { failureKind } from '../../../metrics/createMetrics.ts'
import { classifySolanaRpcError } from '../classifySolanaRpcError.ts'
import type { SolanaContext } from '../solanaContext.ts'

export async function callSolanaRpc<T>(
  ctx: SolanaContext,
  method: string,
  what: string,
  fn: (rpc: Rpc<SolanaRpcApi>, abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { chain, rpcRecorder } = ctx
  let last: GatewayError | undefined
  for (const endpoint of ctx.endpoints) {
    const started = performance.now()
    endpoint.view.requests++
    const abortSignal = AbortSignal.timeout(ctx.rpcTimeoutMs)
    try {
      const result = await fn(endpoint.rpc, abortSignal)
      endpoint.view.latencyMs = Math.round(performance.now() - started)
      endpoint.view.status = 'healthy'
      rpcRecorder?.observeRpc({ chain: chain.chainId, method, seconds: (performance.now() - started) / 1000 })
      return result
    } catch (err) {
      const failure = classifySolanaRpcError(err, chain.chainId, what)
      rpcRecorder?.observeRpc({ chain: chain.chainId, method, seconds: (performance.now() - started) / 1000, failure: failureKind(failure, abortSignal.aborted) })
      endpoint.view.failures++
      endpoint.view.lastError = failure.details ?? failure.shortMessage
      if (!(failure instanceof ChainUnavailableError)) throw failure
      endpoint.view.status = 'failing'
      last = failure
    }
  }
  throw last!
}
