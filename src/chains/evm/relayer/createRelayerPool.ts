// Several relayer keys on one chain, each with its own nonce sequence and lock, so that
// executions are not bound to one account's nonces. A key is used only while this instance holds
// its lease (always, alone; while the shared lease store says so, with several instances) and can
// pay for an execution; each execution goes to the usable key with the fewest sends in flight.
// Leases and balances are refreshed in the background: nothing here waits on the store or the
// node inside a send's nonce lock.
import type { Logger } from 'pino'
import type { Address, LocalAccount, PublicClient } from 'viem'
import { GatewayError } from '../../../errors/gatewayError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { type BroadcastMany, createRelayer, type Relayer } from './createRelayer.ts'
import type { RelayerLeases } from '../../../ports/relayerLeases.ts'

export type RelayerPool = {
  /** Every configured relayer, in the configured order. */
  readonly addresses: readonly Address[]
  /** The relayer for one execution (held, funded, fewest in flight), counted in flight until `done`. Throws 503 (0x40) when none is usable now. */
  take(): { relayer: Relayer; done(): void }
  /** `take`, after renewing first when the leases held lapsed locally only because their renewal is late (a busy process). */
  acquire(): Promise<{ relayer: Relayer; done(): void }>
  /**
   * Whether this instance holds a key it may send from now (renewing first, as `acquire`): without
   * one, an execution is refused before it is claimed.
   */
  canSendNow(): Promise<boolean>
  /** Whether this instance holds the key now (its records are this instance's to reconcile). */
  holds(address: string): boolean
  accountOf(address: string): LocalAccount | undefined
  /** Every relayer reads its nonce again before its next send (after a chain reset). */
  resync(): void
  /** What /chains shows: each key, whether it is held and funded, its sends in flight. */
  view(): Array<{ address: Address; held: boolean; funded: boolean; inFlight: number }>
  /** Claims the leases and reads the balances once, then keeps doing so in the background. */
  start(): Promise<void>
  close(): Promise<void>
}

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
}

export function createRelayerPool({ accounts, client, chainId, chain, logger, leases, nonceFloor, broadcastMany, minBalance, balanceIntervalMs = 15_000 }: CreateRelayerPoolParameters): RelayerPool {
  const log = logger.child({ module: 'relayer-pool' })
  const members = accounts.map((account) => ({
    account,
    relayer: createRelayer({ account, client, chainId, logger: log, nonceFloor: nonceFloor && ((ignore) => nonceFloor(account.address, ignore)), broadcastMany }),
    // Held for good with no lease store (one instance); else from the first claim on.
    usableUntil: Number.isFinite(leases.ttlMs) ? 0 : Number.POSITIVE_INFINITY,
    funded: true,
    inFlight: 0,
    // Above this instance's share: no longer sent from, given back at the next claim once no send from it is under way.
    leaving: false,
  }))
  const byAddress = new Map(members.map((m) => [m.account.address.toLowerCase(), m]))
  // A lease is used only until a safety margin before it ends: a send under way finishes before another instance may take the key.
  const margin = Number.isFinite(leases.ttlMs) ? Math.max(leases.ttlMs / 3, 500) : 0
  const timers: Array<ReturnType<typeof setInterval>> = []
  let closed = false

  let claiming: Promise<void> | undefined
  // One claim at a time: a give-back and a later claim of the same key never cross.
  const claimLeases = () => (claiming ??= claimOnce().finally(() => (claiming = undefined)))

  async function claimOnce() {
    const release = members.filter((m) => m.leaving && m.inFlight === 0).map((m) => m.account.address)
    const asked = Date.now()
    const held = await leases.claim(chain, members.map((m) => m.account.address), { release })
    const now = Date.now()
    if (Number.isFinite(leases.ttlMs) && now - asked > margin) log.warn({ ms: now - asked }, 'renewing the relayer leases took longer than their safety margin: keys pause until it answers')
    const heldNow = new Set<string>()
    for (const lease of held) {
      const member = byAddress.get(lease.relayer.toLowerCase())
      if (!member) continue
      heldNow.add(lease.relayer.toLowerCase())
      member.leaving = false
      if (lease.acquired) {
        // Taken over (or new): its nonce is read again from the node and the journal before it sends.
        member.relayer.resync()
        if (member.usableUntil <= now) log.info({ relayer: member.account.address }, 'relayer key leased to this instance')
      }
      member.usableUntil = lease.expiresAt - margin
    }
    for (const member of members) {
      if (heldNow.has(member.account.address.toLowerCase())) continue
      if (release.includes(member.account.address)) member.leaving = false
      if (member.usableUntil > now) {
        log.info({ relayer: member.account.address }, 'relayer key no longer leased to this instance: it stops sending from it')
        member.usableUntil = 0
        member.leaving = true
      }
    }
  }

  async function readBalances() {
    const least = await minBalance()
    await Promise.all(
      members.map(async (member) => {
        const balance = await client.getBalance({ address: member.account.address })
        const funded = balance >= least
        if (funded !== member.funded) {
          if (funded) log.info({ relayer: member.account.address, balance: balance.toString() }, 'relayer key funded again: back in use')
          else log.warn({ relayer: member.account.address, balance: balance.toString(), needed: least.toString() }, 'relayer key cannot pay for one execution: set aside until it is funded')
        }
        member.funded = funded
      }),
    )
  }

  const usable = (m: (typeof members)[number], now: number) => m.funded && m.usableUntil > now
  // Held at the last claim and not given up since, but past its local margin: the renewal is late.
  const renewIfLapsed = async () => {
    const now = Date.now()
    if (members.some((m) => m.usableUntil > now) || !members.some((m) => m.usableUntil > 0)) return
    await claimLeases().catch((err: unknown) => log.warn({ err }, 'relayer leases could not be renewed'))
  }

  const pool: RelayerPool = {
    addresses: members.map((m) => m.account.address),
    take() {
      const now = Date.now()
      const fewest = (candidates: typeof members) => candidates.reduce<(typeof members)[number] | undefined>((best, m) => (!best || m.inFlight < best.inFlight ? m : best), undefined)
      // Funded keys first; when every held key is short, one is tried anyway: the node's refusal
      // names the problem (502), and a key funded since is used at once, not at the next balance read.
      const best = fewest(members.filter((m) => usable(m, now))) ?? fewest(members.filter((m) => m.usableUntil > now))
      if (!best) {
        throw new GatewayError('No relayer key is available to send the execution', {
          code: 'RELAYER_UNAVAILABLE',
          status: Status.UNAVAILABLE,
          details: 'this instance holds no relayer key now (the others are leased to other instances)',
          headers: { 'retry-after': '5' },
        })
      }
      const member = best
      member.inFlight++
      let finished = false
      return {
        relayer: member.relayer,
        done() {
          if (!finished) member.inFlight--
          finished = true
        },
      }
    },
    async acquire() {
      await renewIfLapsed()
      return pool.take()
    },
    async canSendNow() {
      await renewIfLapsed()
      const now = Date.now()
      return members.some((m) => m.usableUntil > now)
    },
    holds(address) {
      const member = byAddress.get(address.toLowerCase())
      return member !== undefined && member.usableUntil + margin > Date.now()
    },
    accountOf: (address) => byAddress.get(address.toLowerCase())?.account,
    resync() {
      for (const m of members) m.relayer.resync()
    },
    view: () => members.map((m) => ({ address: m.account.address, held: m.usableUntil > Date.now(), funded: m.funded, inFlight: m.inFlight })),
    async start() {
      await claimLeases()
      await readBalances().catch((err: unknown) => log.warn({ err }, 'relayer balances could not be read; keys count as funded until they are'))
      if (Number.isFinite(leases.ttlMs)) {
        // Several times a lease's life: shares settle within a fraction of it when an instance joins or leaves.
        const renew = setInterval(() => {
          if (!closed) claimLeases().catch((err: unknown) => log.warn({ err }, 'relayer leases could not be renewed; keys stop sending when their leases end'))
        }, leases.ttlMs / 6)
        renew.unref()
        timers.push(renew)
      }
      const balances = setInterval(() => {
        if (!closed) readBalances().catch((err: unknown) => log.warn({ err }, 'relayer balances could not be read'))
      }, balanceIntervalMs)
      balances.unref()
      timers.push(balances)
    },
    async close() {
      closed = true
      for (const t of timers) clearInterval(t)
    },
  }
  return pool
}
