// An @solana/kit RPC over the endpoints a chain's runtime lends (ports/chainEndpoints.ts): each
// call goes through the chain's endpoints (failover, standing, metrics), and its answer is handed
// back to kit as the node's JSON-RPC answer, so kit's transformers and errors stay as they were.
import { createSolanaRpcFromTransport, type RpcTransport } from '@solana/kit'
import type { LentEndpoints } from '../../../ports/chainEndpoints.ts'

export function toSolanaRpc(endpoints: LentEndpoints, { timeoutMs }: { timeoutMs?: number | undefined } = {}) {
  const transport = (async ({ payload, signal }) => {
    const { id, method, params } = payload as { id: string; method: string; params?: unknown }
    const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)
    const result = await endpoints.request(
      { method, params },
      { signal: signal && timeout ? AbortSignal.any([signal, timeout]) : (signal ?? timeout) },
    )
    return { jsonrpc: '2.0', id, result }
  }) as RpcTransport // kit types a transport generic in its answer; this one hands on whatever the node answered
  return createSolanaRpcFromTransport(transport)
}
