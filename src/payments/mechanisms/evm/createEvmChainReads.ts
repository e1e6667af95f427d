// The reads of the EVM networks payments settle on that recovery and the re-check need: a public
// client per network, whether the facilitator may still have a settlement in the node, and
// forgetting its counted nonces after a reorg. Built over the endpoints the networks' runtime lends
// (its pool: failover, standing, metrics).
import { type Address, createPublicClient, nonceManager, type PublicClient } from 'viem'
import type { ChainReadsParameters } from '../paymentMechanism.ts'
import { toEvmTransport } from './toEvmTransport.ts'

/** The EVM mechanism's reads of its networks, handed back to its recovery and re-check. */
export type EvmChainReads = {
  /** A public client for a payment's network; undefined when it is not reachable from here. */
  clientFor(network: string): PublicClient | undefined
  /** Whether the in-process facilitator (`settler`) may still have a settlement in the node. */
  settlementMayBePending(network: string, settler: Address): Promise<boolean>
  /** Forgets the settler's counted nonces after a reorg took one back (read from the node again). */
  forgetSettlerNonces(network: string, settler: Address): void
}

export function createEvmChainReads({ endpointsOf }: ChainReadsParameters): EvmChainReads {
  const clients = new Map<string, PublicClient>()
  const clientFor = (network: string) => {
    const lent = endpointsOf(network)
    if (!lent || !network.startsWith('eip155:')) return undefined
    let client = clients.get(network)
    if (!client) clients.set(network, (client = createPublicClient({ transport: toEvmTransport(lent) })))
    return client
  }
  return {
    clientFor,
    // The in-process facilitator's own unmined transactions: a settlement the crash left in flight.
    // Also one the node keeps queued behind a gap in the facilitator's nonces (an earlier settlement
    // lost on the way, a later one delivered): the pending count does not show it, and this
    // process's next settlement fills the gap and lands it (issue 43: a payer charged twice, seed
    // 123352216). The node's txpool says; a node that cannot say may hold one.
    async settlementMayBePending(network, settler) {
      const client = clientFor(network)
      if (!client) return true
      const [pending, latest] = await Promise.all([
        client.getTransactionCount({ address: settler, blockTag: 'pending' }),
        client.getTransactionCount({ address: settler, blockTag: 'latest' }),
      ])
      if (pending > latest) return true
      return (await inNodePool(client, settler)) !== false
    },
    // The in-process facilitator counts its nonces with viem's shared nonce manager, which never
    // goes below the last nonce it gave: after a reorg took a settlement's nonce back, every later
    // settlement would wait behind a gap. Forgotten here, it is read from the node again.
    forgetSettlerNonces(network, settler) {
      nonceManager.reset({ address: settler, chainId: Number(network.split(':')[1]) })
    },
  }
}

type PoolContent = { pending?: Record<string, unknown>; queued?: Record<string, unknown> }

/**
 * Whether the node's transaction pool holds a transaction of `address`, pending or queued (geth's
 * and anvil's txpool namespace: txpool_contentFrom, else txpool_content); undefined when the node
 * cannot say (the namespace off, as at most hosted endpoints).
 */
export async function inNodePool(client: PublicClient, address: string): Promise<boolean | undefined> {
  const holds = (pool: PoolContent, only: boolean) =>
    [pool.pending, pool.queued].some((group) =>
      Object.entries(group ?? {}).some(
        ([from, txs]) => (only || from.toLowerCase() === address.toLowerCase()) && Object.keys(txs ?? {}).length > 0,
      ),
    )
  // The txpool methods are not in a public client's RPC schema: viem's override names their parameters and result.
  try {
    return holds(
      await client.request<{ Parameters: [string]; ReturnType: PoolContent }>({
        method: 'txpool_contentFrom',
        params: [address],
      }),
      true,
    )
  } catch {}
  try {
    return holds(
      await client.request<{ Parameters?: undefined; ReturnType: PoolContent }>({ method: 'txpool_content' }),
      false,
    )
  } catch {
    return undefined
  }
}
