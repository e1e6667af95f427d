import type { Devnet } from '../gatewayParts.ts'
import { rpc } from './rpc.ts'

/**
 * Each relayer: its mined nonce equals its pending one, and the node's pool holds nothing of it at
 * or above the mined nonce (a transaction there, not pending, waits behind a gap). Transactions
 * below the mined nonce can never mine: reported apart, as what anvil kept from orphaned blocks.
 */
export async function nonceCheck(
  devnet: Devnet,
  relayers: readonly string[],
): Promise<{ problems: string[]; stale: string[] }> {
  const problems: string[] = []
  const stale: string[] = []
  const pool = (await rpc(devnet.anvil.rpcUrl, 'txpool_content', [])) as Record<
    'pending' | 'queued',
    Record<string, Record<string, unknown>>
  >
  for (const address of relayers) {
    const [mined = 0, withPending = 0] = await Promise.all(
      ['latest', 'pending'].map(async (tag) =>
        Number(await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionCount', [address, tag])),
      ),
    )
    const nonces = (['pending', 'queued'] as const).flatMap((kind) =>
      Object.entries(pool[kind])
        .filter(([k]) => k.toLowerCase() === address.toLowerCase())
        .flatMap(([, byNonce]) => Object.keys(byNonce).map((n) => ({ kind, nonce: Number(n) }))),
    )
    const above = nonces.filter((n) => n.nonce >= mined)
    const below = nonces.filter((n) => n.nonce < mined)
    if (mined !== withPending || above.length > 0)
      problems.push(
        `${address}: mined nonce ${mined}, pending ${withPending}, in the pool at or above it: ${above.map((n) => `${n.nonce} (${n.kind})`).join(', ') || 'none'}`,
      )
    if (below.length > 0)
      stale.push(
        `${address}: ${below.length} transactions below its mined nonce ${mined} left in anvil's pool (${[...new Set(below.map((n) => n.kind))].join(', ')}; nonces ${Math.min(...below.map((n) => n.nonce))}-${Math.max(...below.map((n) => n.nonce))})`,
      )
  }
  return { problems, stale }
}
