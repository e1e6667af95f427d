// What a chain's relayer pool (createRelayerPool.ts) works with: each key's sender and standing
// (held until when, funded, sends in flight), the lease store, and the background timers.
import type { Logger } from 'pino'
import type { Address, LocalAccount, PublicClient } from 'viem'
import type { RelayerLeases } from '../../../ports/relayerLeases.ts'
import { type BroadcastMany, createRelayer, type Relayer } from './createRelayer.ts'

export type CreateRelayerPoolParameters = {
  accounts: readonly LocalAccount[]
  client: PublicClient
  chainId: number
  /** The chain's CAIP-2 id, the leases' key. */
  chain: string
  logger: Logger
  leases: RelayerLeases
  /** The lowest nonce a new transaction of this relayer may use besides the node's view (the journal's unsettled ones). */
  nonceFloor?: ((address: Address, ignore: ReadonlySet<string>) => Promise<number | undefined>) | undefined
  broadcastMany?: BroadcastMany | undefined
  /** The least balance (wei) a key needs to be used: what one execution may cost at most. */
  minBalance: () => Promise<bigint>
  balanceIntervalMs?: number
  /** Told of each nonce gap a key's relayer filled (metrics). */
  onGapFilled?: ((filler: 'resent' | 'noop') => void) | undefined
}

export type Member = {
  account: LocalAccount
  relayer: Relayer
  /** Until when this instance may send from the key (its lease's end less the margin). */
  usableUntil: number
  /** The epoch of the lease held (fencing: a transaction goes out only under the epoch it was signed under). */
  epoch: number
  funded: boolean
  inFlight: number
  /** When this key was last taken for a send (takeRelayer's count); 0: never. */
  lastTaken: number
  /** Above this instance's share: no longer sent from, given back at the next claim once no send from it is under way. */
  leaving: boolean
}

export type RelayerPoolContext = {
  log: Logger
  client: PublicClient
  chain: string
  leases: RelayerLeases
  minBalance: () => Promise<bigint>
  balanceIntervalMs: number
  /** In the configured order. */
  members: Member[]
  byAddress: Map<string, Member>
  /** A lease is used only until this long before it ends: a send under way finishes before another instance may take the key. */
  margin: number
  timers: Array<ReturnType<typeof setInterval>>
  closed: boolean
  /** The claim under way: one at a time, so a give-back and a later claim of the same key never cross. */
  claiming: Promise<void> | undefined
}

export function createRelayerPoolContext({
  accounts,
  client,
  chainId,
  chain,
  logger,
  leases,
  nonceFloor,
  broadcastMany,
  minBalance,
  balanceIntervalMs = 15_000,
}: CreateRelayerPoolParameters): RelayerPoolContext {
  const log = logger.child({ module: 'relayer-pool' })
  const leased = Number.isFinite(leases.ttlMs)
  const members = accounts.map((account) => {
    const member: Member = {
      account,
      relayer: undefined as unknown as Relayer,
      // Held for good with no lease store (one instance); else from the first claim on.
      usableUntil: leased ? 0 : Number.POSITIVE_INFINITY,
      epoch: 0,
      funded: true,
      inFlight: 0,
      lastTaken: 0,
      leaving: false,
    }
    // Read at signing and again right before the broadcast: a key's transactions go out only while its lease lives under the same epoch.
    const leaseEpoch = leased ? () => (member.usableUntil > Date.now() ? member.epoch : undefined) : undefined
    member.relayer = createRelayer({
      account,
      client,
      chainId,
      logger: log,
      nonceFloor: nonceFloor && ((ignore) => nonceFloor(account.address, ignore)),
      broadcastMany,
      leaseEpoch,
    })
    return member
  })
  return {
    log,
    client,
    chain,
    leases,
    minBalance,
    balanceIntervalMs,
    members,
    byAddress: new Map(members.map((m) => [m.account.address.toLowerCase(), m])),
    margin: Number.isFinite(leases.ttlMs) ? Math.max(leases.ttlMs / 3, 500) : 0,
    timers: [],
    closed: false,
    claiming: undefined,
  }
}
