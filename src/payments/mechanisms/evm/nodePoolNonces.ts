// What the node's transaction pool holds of one sender, by nonce: pending (next to be mined) and
// queued (behind a gap), read through geth's and anvil's txpool namespace (txpool_contentFrom, else
// txpool_content). Undefined when the node cannot say (the namespace off, as at most hosted
// endpoints).
import type { PublicClient } from 'viem'

type PoolGroup = Record<string, unknown> | undefined
type PoolContent = { pending?: PoolGroup; queued?: PoolGroup }

export async function nodePoolNonces(client: PublicClient, address: string): Promise<Set<number> | undefined> {
  const noncesOf = (pool: PoolContent) =>
    new Set([pool.pending, pool.queued].flatMap((group) => Object.keys(group ?? {}).map(Number)))
  // The txpool methods are not in a public client's RPC schema: viem's override names their parameters and result.
  try {
    return noncesOf(
      await client.request<{ Parameters: [string]; ReturnType: PoolContent }>({
        method: 'txpool_contentFrom',
        params: [address],
      }),
    )
  } catch {}
  try {
    const pool = await client.request<{ Parameters?: undefined; ReturnType: Record<'pending' | 'queued', PoolGroup> }>({
      method: 'txpool_content',
    })
    const fromSender = (group: PoolGroup) =>
      Object.entries(group ?? {}).find(([from]) => from.toLowerCase() === address.toLowerCase())?.[1] as PoolGroup
    return noncesOf({ pending: fromSender(pool.pending), queued: fromSender(pool.queued) })
  } catch {
    return undefined
  }
}
