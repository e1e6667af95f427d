// One JSON-RPC call lent to payments (ports/chainEndpoints.ts): tried on each endpoint in turn as
// the adapter's own calls are (callSolanaRpc.ts: timed, counted in the endpoint's view and the
// metrics); the node's own error is thrown as @solana/kit throws it, so the caller's RPC client
// reads it as if it had sent the call itself.
import { getSolanaErrorFromJsonRpcError } from '@solana/kit'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

let nextId = 0

export async function lentRequest(
  ctx: SolanaContext,
  { method, params }: { method: string; params?: unknown },
  options?: { signal?: AbortSignal | undefined },
): Promise<unknown> {
  const payload = { jsonrpc: '2.0', id: String(nextId++), method, params }
  // The node's answer, error or not, counts as an answer: only an unanswered call moves on to the next endpoint.
  const answer = await callSolanaRpc(ctx, method, `${method} request`, (_rpc, abortSignal, endpoint) =>
    endpoint.transport<{ result?: unknown; error?: unknown }>({
      payload,
      signal: options?.signal ? AbortSignal.any([options.signal, abortSignal]) : abortSignal,
    }),
  )
  if ('error' in answer && answer.error !== undefined) throw getSolanaErrorFromJsonRpcError(answer.error)
  return answer.result
}
