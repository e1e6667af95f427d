// Several relayer keys on one chain, each with its own nonce sequence and lock, so that
// executions are not bound to one account's nonces. A key is used only while this instance holds
// its lease (always, alone; while the shared lease store says so, with several instances) and can
// pay for an execution; each execution goes to the usable key with the fewest sends in flight.
// Leases and balances are refreshed in the background: nothing here waits on the store or the
// node inside a send's nonce lock.
// Each operation is a function of the pool's context (relayerPoolContext.ts).
import type { Address, Hex, LocalAccount } from 'viem'
import { GatewayError } from '../../../errors/gatewayError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { renewIfLapsed } from './claimLeases.ts'
import type { GapCheck, Relayer, UnminedCall } from './createRelayer.ts'
import { type CreateRelayerPoolParameters, createRelayerPoolContext } from './relayerPoolContext.ts'
import { closeRelayerPool, startRelayerPool } from './startRelayerPool.ts'
import { takeRelayer } from './takeRelayer.ts'

export type { CreateRelayerPoolParameters } from './relayerPoolContext.ts'

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
  /**
   * Each key this instance holds: transactions of its own queued behind a nonce nothing uses are
   * let through (the gap filled with what the key had sent there, else a no-op, once seen on two checks).
   */
  fillGaps(options?: { confirmAfterMs?: number }): Promise<Array<{ address: Address; check: GapCheck }>>
  /** `fillGaps` for one key, with one of its transactions known above the gap; undefined when this instance does not hold the key. */
  fillGap(
    address: string,
    options?: { queued?: { nonce: number; hash: Hex; raw: Hex }; confirmAfterMs?: number },
  ): Promise<GapCheck | undefined>
  /** Every relayer reads its nonce again before its next send (after a chain reset). */
  resync(): void
  /**
   * Every transaction of the chain's relayer keys the node may still mine, each key's in nonce
   * order, as eth_simulateV1 calls; undefined unless this instance holds every key and the bytes of
   * each such transaction (after a start, a resync or a lease taken over, until a nonce read finds
   * none it lacks; or while another instance holds a key).
   */
  unmined(): Array<{ address: Address; calls: UnminedCall[]; next: number | undefined }> | undefined
  /** A receipt of a relayer's transaction (`from`, its hash): it and those below it are no longer replayed. */
  mined(from: string, hash: Hex): void
  /** The node's count of a relayer's mined transactions (on the block a simulation ran on): what is kept below it is no longer replayed. */
  minedBelow(address: string, count: number): void
  /** The node's count left a nonce of the relayer's below those kept that this instance has no bytes for: unknown until the next anchor. */
  unminedLacking(address: string): void
  /** A relayer's transaction sent outside its sends (a re-priced replacement at the same nonce). */
  sentElsewhere(address: string, tx: { nonce: number; hash: Hex; raw: Hex }): void
  /** Each held key whose unmined transactions are not known looks again at the node's counts. */
  anchor(): Promise<void>
  /** What /chains shows: each key, whether it is held and funded, its sends in flight. */
  view(): Array<{
    address: Address
    held: boolean
    funded: boolean
    inFlight: number
    nonce?: number | undefined
    draining?: boolean
  }>
  /** Claims the leases and reads the balances once, then keeps doing so in the background. */
  start(): Promise<void>
  close(): Promise<void>
}

export function createRelayerPool(parameters: CreateRelayerPoolParameters): RelayerPool {
  const ctx = createRelayerPoolContext(parameters)
  const { members, byAddress } = ctx
  const told = (check: GapCheck): GapCheck => {
    if (check.kind === 'filled') parameters.onGapFilled?.(check.again ? 'resent' : 'noop')
    return check
  }
  // An operator drained this instance: no new send from any key, from the moment the switch is read.
  const draining = () => ctx.leases.draining?.() === true
  const take = () => {
    if (draining()) throw drainedError()
    return takeRelayer(ctx)
  }
  return {
    addresses: members.map((m) => m.account.address),
    take,
    async acquire() {
      await renewIfLapsed(ctx)
      return take()
    },
    async canSendNow() {
      if (draining()) return false
      await renewIfLapsed(ctx)
      const now = Date.now()
      return members.some((m) => m.usableUntil > now)
    },
    holds(address) {
      const member = byAddress.get(address.toLowerCase())
      return member !== undefined && member.usableUntil + ctx.margin > Date.now()
    },
    accountOf: (address) => byAddress.get(address.toLowerCase())?.account,
    async fillGaps(options = {}) {
      const now = Date.now()
      const held = members.filter((m) => m.usableUntil > now)
      return Promise.all(
        held.map(async (m) => ({ address: m.account.address, check: told(await m.relayer.fillGap(options)) })),
      )
    },
    async fillGap(address, options = {}) {
      const member = byAddress.get(address.toLowerCase())
      if (!member || member.usableUntil <= Date.now()) return undefined
      return told(await member.relayer.fillGap(options))
    },
    resync() {
      for (const m of members) m.relayer.resync()
    },
    unmined() {
      const now = Date.now()
      const keys: Array<{ address: Address; calls: UnminedCall[]; next: number | undefined }> = []
      for (const m of members) {
        if (m.usableUntil <= now) return undefined
        const calls = m.relayer.unmined()
        if (calls === undefined) return undefined
        keys.push({ address: m.account.address, calls, next: m.relayer.nextNonce() })
      }
      return keys
    },
    mined: (from, hash) => byAddress.get(from.toLowerCase())?.relayer.mined(hash),
    minedBelow: (address, count) => byAddress.get(address.toLowerCase())?.relayer.minedBelow(count),
    unminedLacking: (address) => byAddress.get(address.toLowerCase())?.relayer.unminedLacking(),
    sentElsewhere: (address, tx) => byAddress.get(address.toLowerCase())?.relayer.sentElsewhere(tx),
    async anchor() {
      const now = Date.now()
      await Promise.all(members.filter((m) => m.usableUntil > now).map((m) => m.relayer.anchor().catch(() => {})))
    },
    view: () =>
      members.map((m) => ({
        address: m.account.address,
        held: m.usableUntil > Date.now(),
        funded: m.funded,
        inFlight: m.inFlight,
        nonce: m.relayer.nextNonce(),
        ...(draining() ? { draining: true } : {}),
      })),
    start: () => startRelayerPool(ctx),
    close: () => closeRelayerPool(ctx),
  }
}

function drainedError(): GatewayError {
  return new GatewayError('This instance is drained: it sends nothing new', {
    code: 'RELAYER_UNAVAILABLE',
    status: Status.UNAVAILABLE,
    details: 'an operator drained this gateway instance; another instance takes new executions',
    headers: { 'retry-after': '5' },
  })
}
