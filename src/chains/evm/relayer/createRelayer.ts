// Sends transactions from one relayer key. Nonces are handed out and transactions signed under a
// lock; the rest is pipelined outside it. Each signed transaction is handed to `onSigned` (the
// journal: concurrent writes share one fsync) and broadcast only once that resolved and every
// transaction below its nonce went out: in nonce order, what became ready while one group was at
// the node going as the next group, in one request the node runs in order. A broadcast whose
// answer is lost keeps its nonce (the journal delivers that very transaction again). A refused
// broadcast's nonce is re-read when nothing after it was handed out; when later nonces are out,
// it is filled with a no-op transaction instead, never handed back, since the node would hold
// every later transaction behind the gap.
// Each operation is a function of the relayer's context (relayerContext.ts).
import type { Address, Hex } from 'viem'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'
import { broadcastOneByOne } from './broadcastRaw.ts'
import { currentFees } from './currentFees.ts'
import { fillGap, type GapCheck } from './fillGap.ts'
import { forgetMinedBelow, forgetMinedHash, noteUnmined, unminedCalls } from './outbox.ts'
import type { Fees, RelayedTransaction, SendResult } from './relayedTransaction.ts'
import { type CreateRelayerParameters, createRelayerContext, type UnminedCall } from './relayerContext.ts'
import { type BundledSendResult, type BundleMember, sendBundled } from './sendBundled.ts'
import { type SendClaim, sendRelayed } from './sendRelayed.ts'
import { readNonce } from './signRelayed.ts'

export { broadcastRaw } from './broadcastRaw.ts'
export type { GapCheck } from './fillGap.ts'
export { isTransportError } from './isTransportError.ts'
export type { Fees, RelayedTransaction, SendResult } from './relayedTransaction.ts'
export type { BroadcastMany, CreateRelayerParameters, UnminedCall } from './relayerContext.ts'
export type { BundledSendResult, BundleMember } from './sendBundled.ts'
export { NotClaimedError, type SendClaim } from './sendRelayed.ts'

export type Relayer = {
  address: Address
  /** The fees a transaction sent now would carry (one estimate shared for a second): simulate with these, then send with them. */
  fees(): Promise<Fees>
  /**
   * Signs, calls `onSigned` (which may throw to stop the send), and broadcasts. Resolves once the
   * node has accepted the transaction or its answer was lost; rejects when the node refused it.
   */
  send(
    tx: RelayedTransaction,
    options?: { onSigned?: (tx: SignedExecution) => void | Promise<void>; claim?: SendClaim | undefined },
  ): Promise<SendResult>
  /**
   * Sends the execution as a call of one IntentBundler transaction (at `bundler`) with the other
   * members of its chunk that claim with it (sendBundled.ts); resolves once the node has accepted
   * the bundle or its answer was lost, with the member's place in it.
   */
  sendBundled(bundler: Address, member: BundleMember): Promise<BundledSendResult>
  /**
   * Forgets the next nonce it would hand out, so the next send reads it again from the node and
   * the journal (after a chain reset, or once a journaled transaction was found unable to mine):
   * a nonce above a gap would never mine.
   */
  resync(): void
  /** The nonce the next send would take, as this instance counts it; undefined until it reads it from the node (or after a resync). */
  nextNonce(): number | undefined
  /**
   * When the node holds this relayer's transactions queued behind a nonce nothing uses (seen on two
   * checks), fills that nonce (with what it had sent there, else a no-op) so they mine (fillGap.ts). `queued`: one of
   * its transactions the caller knows of above the gap.
   */
  fillGap(options?: {
    queued?: { nonce: number; hash: Hex; raw: Hex } | undefined
    confirmAfterMs?: number
  }): Promise<GapCheck>
  /**
   * This key's transactions the node may still mine, in nonce order, as eth_simulateV1 calls;
   * undefined while this instance may not hold the bytes of every one (outbox.ts).
   */
  unmined(): UnminedCall[] | undefined
  /** A receipt of one of this key's transactions: it and those below its nonce are no longer replayed. */
  mined(hash: Hex): void
  /** The node's count of this key's mined transactions: what is kept below it is no longer replayed. */
  minedBelow(count: number): void
  /** The node holds a transaction of this key below those kept that this instance lacks: unknown until the next anchor finds none. */
  unminedLacking(): void
  /** A transaction of this key sent outside its sends (a re-priced replacement): it takes the place of what was kept at its nonce. */
  sentElsewhere(tx: { nonce: number; hash: Hex; raw: Hex }): void
  /** Looks again (under the lock, at the node's counts) whether every transaction of this key the node may mine is known; `unmined()` tells. */
  anchor(): Promise<void>
}

export function createRelayer({ broadcastMany, ...parameters }: CreateRelayerParameters): Relayer {
  const ctx = createRelayerContext({
    ...parameters,
    broadcastMany: broadcastMany ?? broadcastOneByOne(parameters.client),
  })
  return {
    address: ctx.address,
    fees: () => currentFees(ctx),
    resync() {
      // Under the lock: a send under way finishes with the nonce it has, the next one re-reads.
      // What was kept as unmined may be of another chain instance or long gone: known again only
      // once a nonce read finds nothing of the key's in the pool besides what is signed from then on.
      ctx.unminedKnown = false
      void ctx.lock.run(async () => {
        ctx.nextNonce = undefined
        ctx.unminedKnown = false
        ctx.unmined.clear()
      })
    },
    send: (tx, options) => sendRelayed(ctx, tx, options),
    sendBundled: (bundler, member) => sendBundled(ctx, bundler, member),
    nextNonce: () => ctx.nextNonce,
    fillGap: (options) => fillGap(ctx, options),
    unmined: () => unminedCalls(ctx),
    mined: (hash) => void forgetMinedHash(ctx, hash),
    minedBelow: (count) => forgetMinedBelow(ctx, count),
    unminedLacking: () => {
      ctx.unminedKnown = false
    },
    sentElsewhere: ({ nonce, hash, raw }) => noteUnmined(ctx, nonce, raw, hash),
    anchor: () =>
      ctx.lock.run(async () => {
        // The counts a nonce read takes tell (the next nonce handed out is left as it is).
        if (!ctx.unminedKnown) await readNonce(ctx)
      }),
  }
}
