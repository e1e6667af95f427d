// The reads of the EVM networks payments settle on that recovery and the re-check need: a public
// client per network, whether the facilitator may still have a settlement in the node, and
// forgetting its counted nonces after a reorg. Built over the endpoints the networks' runtime lends
// (its pool: failover, standing, metrics).
import { type Address, createPublicClient, type PublicClient } from 'viem'
import type { ChainReadsParameters } from '../paymentMechanism.ts'
import { nodePoolNonces } from './nodePoolNonces.ts'
import { settlerNonces } from './settlerNonces.ts'
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
    // The in-process facilitator's nonce counter never goes below the last nonce it gave: after a
    // reorg took a settlement's nonce back, every later settlement would wait behind a gap.
    // Forgotten here, it is read from the node again.
    forgetSettlerNonces(network, settler) {
      settlerNonces.forget({ address: settler, chainId: Number(network.split(':')[1]) })
    },
  }
}

/**
 * Whether the node's transaction pool holds a transaction of `address`, pending or queued;
 * undefined when the node cannot say.
 */
export async function inNodePool(client: PublicClient, address: string): Promise<boolean | undefined> {
  const nonces = await nodePoolNonces(client, address)
  return nonces && nonces.size > 0
}
