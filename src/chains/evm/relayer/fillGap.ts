// A relayer whose own transactions wait in the node's pool behind a nonce nothing will use: a
// reorg emptied it (the node does not take orphaned transactions back, and a filler transaction is
// not journaled), or the transaction there was lost for good. The relayer would fill it only with
// its next send, which an idle relayer never makes, so the reconciler asks here: the empty nonce is
// filled with what this relayer sent there (byte for byte) or a zero-value transfer to itself, and
// what waited behind it is mined.
import { type Hex, TransactionNotFoundError } from 'viem'
import { sendFiller } from './closeNonce.ts'
import { isTransportError } from './isTransportError.ts'
import { isAlreadyKnown } from './nodeRefusals.ts'
import { post } from './outbox.ts'
import type { RelayerContext } from './relayerContext.ts'

/**
 * What a gap check found: `filled` the empty nonce (`again`: with the transaction this relayer had
 * sent there, else a no-op); `seen` it once (filled if the next check sees it again); `none`.
 */
export type GapCheck =
  | { kind: 'none' }
  | { kind: 'seen'; nonce: number }
  | { kind: 'filled'; nonce: number; queuedAbove: number; transactionHash: Hex | undefined; again: boolean }
  | { kind: 'failed'; nonce: number }

/** Transactions above the gap asked after in one check (the lowest first). */
const probes = 8
/** Nonces below the node's count whose transactions stay remembered, to be delivered again if a reorg empties them. */
const keptMined = 64
/**
 * How long a transaction above the node's count that the node no longer holds stays remembered: a
 * reorg drops it from the node's pool, and a peer may gossip it back minutes later, queued above
 * the gap. Forgotten at once, it would wait there unseen for as long as the relayer is idle.
 */
const keptMissingMs = 10 * 60_000

/**
 * `queued`: a transaction of this relayer the caller knows of above the node's next nonce (a
 * journaled one). `confirmAfterMs`: a gap is filled only when an earlier check, at least this long
 * before, found the same one: a node behind a load balancer may answer a stale count once.
 */
export function fillGap(
  ctx: RelayerContext,
  {
    queued,
    confirmAfterMs = 1000,
  }: { queued?: { nonce: number; hash: Hex; raw: Hex } | undefined; confirmAfterMs?: number } = {},
): Promise<GapCheck> {
  // Under the lock: no send of this instance takes a nonce meanwhile.
  return ctx.lock.run(async () => {
    // A send under way may be what fills the gap; the next check looks again.
    if (ctx.outbox.length > 0) return { kind: 'none' }
    const { client, address, sent, logger } = ctx
    const next = await client.getTransactionCount({ address, blockTag: 'pending' })
    // Kept a while below the node's count: a reorg may take mined ones back out of the chain.
    for (const n of sent.keys()) if (n < next - keptMined) sent.delete(n)
    // A journaled transaction the reconciler knows above the gap joins what this relayer sent, so
    // that the checks of later passes (with or without it) agree on the gap.
    if (queued && queued.nonce > next) sent.set(queued.nonce, { hash: queued.hash, raw: queued.raw })
    const above = [...sent].filter(([n]) => n > next).sort(([a], [b]) => a - b)
    // Those not yet found missing are asked after first, the lowest first; then the missing ones.
    const candidates = [
      ...above.filter(([, t]) => t.missingSince === undefined),
      ...above.filter(([, t]) => t.missingSince !== undefined),
    ]
    const held = await firstHeld(
      ctx,
      candidates.slice(0, probes).map(([n, { hash }]) => [n, hash]),
    )
    if (held === undefined) {
      ctx.gapSeen = undefined
      // Nothing of ours waits above `next` (what was sent there is gone, each one found missing): a
      // send then reads its nonce again rather than going above the empty one.
      const gone = above.every(([n]) => !sent.has(n) || sent.get(n)!.missingSince !== undefined)
      if (gone && ctx.nextNonce !== undefined && ctx.nextNonce > next) ctx.nextNonce = undefined
      return { kind: 'none' }
    }
    const seen = ctx.gapSeen
    if (seen?.nonce !== next || Date.now() - seen.at < confirmAfterMs) {
      if (seen?.nonce !== next) ctx.gapSeen = { nonce: next, at: Date.now() }
      return { kind: 'seen', nonce: next }
    }
    ctx.gapSeen = undefined
    // What this relayer sent at that nonce, if the node lost it, goes again byte for byte (a reorg
    // took it away before its record was reopened, most often); else a no-op fills the nonce.
    const own = sent.get(next)
    const again = own ? await post(ctx, own.raw, next, own.hash) : undefined
    const delivered = again !== undefined && (again.status === 'fulfilled' || isAlreadyKnown(again.reason))
    // Its answer lost: the node may have it, and a filler could replace it; the next checks tell.
    if (again?.status === 'rejected' && isTransportError(again.reason)) return { kind: 'seen', nonce: next }
    const filled = delivered ? again : await sendFiller(ctx, next)
    // A lost answer may have filled it: the next check tells.
    if (filled.status === 'rejected' && !isAlreadyKnown(filled.reason) && !isTransportError(filled.reason)) {
      logger.error(
        { relayer: address, nonce: next, err: filled.reason },
        'relayer transactions wait behind an empty nonce and the no-op transaction to fill it was refused; the next check tries again',
      )
      return { kind: 'failed', nonce: next }
    }
    // A next nonce at or below what waited would collide with it once the filler lets it through: read again.
    if (ctx.nextNonce !== undefined && ctx.nextNonce <= above.at(-1)![0]) ctx.nextNonce = undefined
    const transactionHash = sent.get(next)?.hash
    const queuedAbove = above.length
    logger.warn(
      {
        relayer: address,
        nonce: next,
        queuedAbove,
        lowestQueued: held,
        transactionHash,
        with: delivered ? 'its own transaction again' : 'a no-op transaction',
      },
      'relayer transactions were waiting behind an empty nonce: filled it',
    )
    return { kind: 'filled', nonce: next, queuedAbove, transactionHash, again: delivered }
  })
}

/**
 * The lowest nonce of these whose transaction the node holds. Those it does not hold are
 * remembered as missing, and forgotten once missing for `keptMissingMs`.
 */
async function firstHeld(
  { client, sent }: RelayerContext,
  candidates: Array<[number, Hex]>,
): Promise<number | undefined> {
  for (const [nonce, hash] of candidates) {
    const known = await client.getTransaction({ hash }).catch((err: unknown) => {
      if (err instanceof TransactionNotFoundError) return undefined
      throw err
    })
    const entry = sent.get(nonce)?.hash === hash ? sent.get(nonce) : undefined
    if (known) {
      if (entry) entry.missingSince = undefined
      return nonce
    }
    if (!entry) continue
    entry.missingSince ??= Date.now()
    if (Date.now() - entry.missingSince >= keptMissingMs) sent.delete(nonce)
  }
  return undefined
}
