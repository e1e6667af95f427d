// A wait for one transaction's receipt joins the watch (starting it when it is the first), and
// closing the watch ends every wait. After a short lull (nothing waited for, less than a recheck
// period) the watch goes on from the last block it read: the next wait asks nothing alone, and
// the blocks since are read. After a longer one it starts again from the head.
import type { Hex } from 'viem'
import { type ReceiptWatcherContext, receiptKey } from './receiptWatcherContext.ts'
import { askAlone } from './settleReceipts.ts'
import { forgetBlocks, placed, scheduleTick } from './tickReceiptWatch.ts'

/**
 * `unsent`: the transaction is not broadcast yet (signed and journaled): its wait is neither asked
 * for alone at a recheck nor ended by the limit until `noteBroadcast` says it went.
 */
export function waitForReceipt<R>(ctx: ReceiptWatcherContext<R>, hash: Hex, unsent = false): Promise<R> {
  if (ctx.closed)
    return Promise.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
  const { waiting } = ctx
  // A watch starting from nothing steps now, from the head or from where it stopped a moment ago.
  const fresh = waiting.size === 0 && !ctx.ticking
  if (fresh && Date.now() - ctx.lastStepAt > ctx.recheckEvery * ctx.intervalMs) forgetBlocks(ctx)
  for (const block of ctx.recent) {
    const r = block.get(receiptKey(hash))
    if (r) return Promise.resolve(r)
  }
  const promise = new Promise<R>((resolve, reject) => {
    const waiters = waiting.get(receiptKey(hash)) ?? []
    waiters.push({ resolve, reject, deadline: unsent ? Number.POSITIVE_INFINITY : Date.now() + ctx.limitMs })
    waiting.set(receiptKey(hash), waiters)
  })
  // A transaction mined before the watch's last block read is in its recent blocks (above) or
  // older, where the recheck finds it; one mined before a watch began (from the head) is in no
  // block the watch will read: it is asked for alone once, at once, after registering. One not
  // broadcast yet is in no block yet: it is in a block after the watch's place, once the watch has
  // one when it goes (whenPlaced), and needs no read of its own.
  if (!unsent && (ctx.recent.length === 0 || ctx.lastBlock === undefined)) void askAlone(ctx, [hash])
  if (fresh && ctx.timer) {
    clearTimeout(ctx.timer)
    ctx.timer = undefined
  }
  scheduleTick(ctx, fresh ? 0 : undefined)
  return promise
}

/**
 * Resolves once the watch has a place (a block number it read, every block after which it reads):
 * a transaction broadcast from then on is in a block it reads. Now when it has one (a failed step
 * keeps it); after the next step's head read when it starts from nothing (a new watch, a long lull);
 * also when that step fails or the watch closes (the recheck finds a transaction whose block no
 * read showed).
 */
export function whenPlaced<R>(ctx: ReceiptWatcherContext<R>): Promise<void> {
  // Nothing waited for: no step would come to place it (and nothing of ours can be missed).
  if (ctx.lastBlock !== undefined || ctx.closed || ctx.waiting.size === 0) return Promise.resolve()
  const promise = new Promise<void>((resolve) => ctx.placing.push(resolve))
  // A step under way places the watch when its head read is answered; else one goes now.
  if (!ctx.ticking) {
    clearTimeout(ctx.timer)
    ctx.timer = undefined
    scheduleTick(ctx, 0)
  }
  return promise
}

/**
 * The transaction waited for since its signature was broadcast now: its waits' recheck period and
 * limit count from here (a wait begun before a slow broadcast is not asked for alone at once).
 */
export function noteBroadcast<R>(ctx: ReceiptWatcherContext<R>, hash: Hex): void {
  const deadline = Date.now() + ctx.limitMs
  for (const w of ctx.waiting.get(receiptKey(hash)) ?? []) w.deadline = deadline
}

/** Stops waiting for a transaction that was never broadcast; its waits never settle (nobody awaits them). */
export function forgetReceipt<R>(ctx: ReceiptWatcherContext<R>, hash: Hex): void {
  ctx.waiting.delete(receiptKey(hash))
}

/** Rejects every wait (the gateway is closing: the reconciler of the next start takes over). */
export function closeReceiptWatch<R>(ctx: ReceiptWatcherContext<R>): void {
  ctx.closed = true
  if (ctx.timer) clearTimeout(ctx.timer)
  ctx.timer = undefined
  placed(ctx)
  for (const [hash, waiters] of ctx.waiting)
    for (const w of waiters) w.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
  ctx.waiting.clear()
}
