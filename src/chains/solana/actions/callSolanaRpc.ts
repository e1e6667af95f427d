// One RPC call of the Solana adapter, tried on each endpoint in turn while they are unreachable;
// every attempt is timed for the metrics and counted in the endpoint's view (/chains), and each
// endpoint reported up (it answered, even with an error) or down (no answer), by its position.
import type { Rpc, SolanaRpcApi } from '@solana/kit'
import { ChainUnavailableError } from '../../../errors/chainUnavailableError.ts'
import type { GatewayError } from '../../../errors/gatewayError.ts'
import { failureKind } from '../../../metrics/createMetrics.ts'
import { classifySolanaRpcError } from '../classifySolanaRpcError.ts'
import type { SolanaContext, SolanaEndpoint } from '../solanaContext.ts'

export async function callSolanaRpc<T>(
  ctx: SolanaContext,
  method: string,
  what: string,
  fn: (rpc: Rpc<SolanaRpcApi>, abortSignal: AbortSignal, endpoint: SolanaEndpoint) => Promise<T>,
): Promise<T> {
  const { chain, rpcRecorder } = ctx
  let last: GatewayError | undefined
  for (const [position, endpoint] of ctx.endpoints.entries()) {
    const started = performance.now()
    endpoint.view.requests++
    const abortSignal = AbortSignal.timeout(ctx.rpcTimeoutMs)
    try {
      const result = await fn(endpoint.rpc, abortSignal, endpoint)
      endpoint.view.latencyMs = Math.round(performance.now() - started)
      endpoint.view.status = 'healthy'
      rpcRecorder?.observeRpc({ chain: chain.chainId, method, seconds: (performance.now() - started) / 1000 })
      rpcRecorder?.observeEndpoint?.({ chain: chain.chainId, endpoint: position, up: true })
      return result
    } catch (err) {
      const failure = classifySolanaRpcError(err, chain.chainId, what)
      rpcRecorder?.observeRpc({
        chain: chain.chainId,
        method,
        seconds: (performance.now() - started) / 1000,
        failure: failureKind(failure, abortSignal.aborted),
      })
      endpoint.view.failures++
      endpoint.view.lastError = failure.details ?? failure.shortMessage
      const down = failure instanceof ChainUnavailableError
      rpcRecorder?.observeEndpoint?.({ chain: chain.chainId, endpoint: position, up: !down })
      if (!down) throw failure
      endpoint.view.status = 'failing'
      last = failure
    }
  }
  throw last!
}
