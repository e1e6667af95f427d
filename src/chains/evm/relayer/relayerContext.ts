// What one relayer key's sender (createRelayer.ts) works with: the key and the chain, the lock its
// nonces are handed out under, the next nonce, the shared fee estimate, and the outbox of signed
// transactions waiting to be broadcast in nonce order.
import type { Logger } from 'pino'
import type { Address, Hex, LocalAccount, PublicClient } from 'viem'
import { createMutex, type Mutex } from '../../createMutex.ts'
import type { Fees } from './relayedTransaction.ts'

export type CreateRelayerParameters = {
  account: LocalAccount
  client: PublicClient
  chainId: number
  logger: Logger
  /**
   * The lowest nonce a new transaction may use besides the node's view: above every journaled,
   * unsettled one but those in `ignore` (refused by the node: their records are being released).
   */
  nonceFloor?: ((ignore: ReadonlySet<string>) => Promise<number | undefined>) | undefined
  /** By default one after another through `client`. */
  broadcastMany?: BroadcastMany | undefined
  /**
   * The epoch of the lease under which this instance may send from the key now; undefined while it
   * does not hold it. A transaction is broadcast only under the epoch it was signed under (fencing:
   * after a partition longer than the lease, what was signed before is never sent). Absent: one
   * instance holds the key for good.
   */
  leaseEpoch?: (() => number | undefined) | undefined
}

/** Broadcasts signed transactions in one request, in this order; one settled answer each. */
export type BroadcastMany = (rawTransactions: readonly Hex[]) => Promise<PromiseSettledResult<unknown>[]>

/** A signed transaction's place in the outbox, taken under the lock in nonce order. */
export type Slot = {
  rawTransaction: Hex
  nonce: number
  hash: Hex | undefined
  ready: boolean
  /** The lease epoch it was signed under (leaseEpoch), checked again right before its broadcast. */
  epoch: number | undefined
  settle(answer: PromiseSettledResult<unknown>): void
  answer: Promise<PromiseSettledResult<unknown>>
}

export type RelayerContext = {
  account: LocalAccount
  address: Address
  client: PublicClient
  chainId: number
  logger: Logger
  nonceFloor: CreateRelayerParameters['nonceFloor']
  broadcastMany: BroadcastMany
  leaseEpoch: CreateRelayerParameters['leaseEpoch']
  /** Nonces are handed out and transactions signed under it. */
  lock: Mutex
  /** Undefined: read again from the node and the journal at the next send. */
  nextNonce: number | undefined
  /** Hashes of transactions the node refused (or never got): the nonce floor ignores them. */
  refused: Set<string>
  /** One estimate shared by concurrent sends, for a second: fees move per block, not per call. */
  fees: { value: Promise<Fees>; at: number } | undefined
  /** Signed transactions in nonce order, not broadcast yet. */
  outbox: Slot[]
  draining: boolean
  /**
   * Nonce to the last transaction broadcast at it (the node took it or its answer was lost), kept
   * until the node's count is well past the nonce: how a gap with this relayer's own transactions queued
   * behind it is told from one with nothing behind it, and what is delivered again into the gap
   * when the node lost it (fillGap.ts). `missingSince`: when a gap check first found the node
   * without it (a reorg took it out; a peer may gossip it back), remembered a while all the same.
   */
  sent: Map<number, { hash: Hex; raw: Hex; missingSince?: number | undefined }>
  /** The empty nonce the last gap check found with transactions queued above it, and when. */
  gapSeen: { nonce: number; at: number } | undefined
  /**
   * This key's own transactions the node may still mine, by nonce: signed (from the moment its
   * nonce is taken, broadcast or not), kept until a receipt at its nonce or above, replaced by what
   * is sent at the same nonce (outbox.ts). What the simulation replays before the intents.
   */
  unmined: Map<number, UnminedTransaction>
  /**
   * Whether `unmined` holds every transaction of this key the node may still mine: false until a
   * nonce read found nothing of the key's in the node's pool it does not hold the bytes of (after a
   * start, a resync, a lease taken over), and after more than it keeps.
   */
  unminedKnown: boolean
}

/** A signed transaction of this key not known to be mined; `call`: its fields, parsed once when first replayed. */
export type UnminedTransaction = { hash: Hex | undefined; raw: Hex; call?: UnminedCall }
/** What eth_simulateV1 takes of a signed transaction to run it again. */
export type UnminedCall = {
  from: Address
  to: Address
  data: Hex
  value: Hex
  gas: Hex
  nonce: Hex
  maxFeePerGas: Hex
  maxPriorityFeePerGas: Hex
  authorizationList?: { chainId: Hex; address: Address; nonce: Hex; yParity: Hex; r: Hex; s: Hex }[]
}

export function createRelayerContext({
  account,
  client,
  chainId,
  logger,
  nonceFloor,
  broadcastMany,
  leaseEpoch,
}: CreateRelayerParameters & { broadcastMany: BroadcastMany }): RelayerContext {
  return {
    account,
    address: account.address,
    client,
    chainId,
    logger,
    nonceFloor,
    broadcastMany,
    leaseEpoch,
    lock: createMutex(),
    nextNonce: undefined,
    refused: new Set(),
    fees: undefined,
    outbox: [],
    draining: false,
    sent: new Map(),
    gapSeen: undefined,
    unmined: new Map(),
    unminedKnown: false,
  }
}
