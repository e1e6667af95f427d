// A wait for one transaction's receipt joins the watch (starting it when it is the first), and
// closing the watch ends every wait. After a short lull (nothing waited for, less than a recheck
// period) the watch goes on from the last block it read: the next wait asks nothing alone, and
// the blocks since are read. After a longer one it starts again from the head.
import type { Hex } from 'viem'
import { type ReceiptWatcherContext, receiptKey, type WatchMark } from './receiptWatcherContext.ts'
import { askAlone } from './settleReceipts.ts'
import { forgetBlocks, scheduleTick } from './tickReceiptWatch.ts'

/** Where the watch stands now: taken before a transaction is sent, handed to its wait. */
export function markReceiptWatch<R>(ctx: ReceiptWatcherContext<R>): WatchMark {
  return { block: ctx.lastBlock }
}

/** `sent`: where the watch stood before the transaction was sent (its block is a later one). */
export function waitForReceipt<R>(ctx: ReceiptWatcherContext<R>, hash: Hex, sent?: WatchMark): Promise<R> {
  if (ctx.closed)
    return Promise.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
  const { waiting } = ctx
  // A watch starting from nothing steps now, from the head or from where it stopped a moment ago.
  const fresh = waiting.size === 0 && !ctx.ticking
  if (fresh && Date.now() - ctx.lastStepAt > ctx.recheckEvery * ctx.intervalMs) forgetBlocks(ctx)
  for (const block of ctx.recent) {
    const r = block.receipts.get(receiptKey(hash))
    if (r) return Promise.resolve(r)
  }
  const promise = new Promise<R>((resolve, reject) => {
    const waiters = waiting.get(receiptKey(hash)) ?? []
    waiters.push({ resolve, reject, deadline: Date.now() + ctx.limitMs })
    waiting.set(receiptKey(hash), waiters)
  })
  // A transaction mined before the watch's last block read is in its recent blocks (above), or in
  // a block the watch read and no longer keeps, or in one it never read (it started from the head,
  // or skipped a long gap): there it is asked for alone once, at once, after registering. Without
  // that, a wait that began late (a broadcast answered after many blocks were read: an automining
  // node, fast blocks, a slow answer) waited for the recheck, 25 intervals or more.
  if (ctx.recent.length === 0 || ctx.lastBlock === undefined || (sent && !keptSince(ctx, sent)))
    void askAlone(ctx, [hash])
  if (fresh && ctx.timer) {
    clearTimeout(ctx.timer)
    ctx.timer = undefined
  }
  scheduleTick(ctx, fresh ? 0 : ctx.intervalMs)
  return promise
}

/** Rejects every wait (the gateway is closing: the reconciler of the next start takes over). */
export function closeReceiptWatch<R>(ctx: ReceiptWatcherContext<R>): void {
  ctx.closed = true
  if (ctx.timer) clearTimeout(ctx.timer)
  ctx.timer = undefined
  for (const [hash, waiters] of ctx.waiting)
    for (const w of waiters) w.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
  ctx.waiting.clear()
}

/** Whether the watch keeps every block it read since the mark (none of them can hide the transaction). */
function keptSince<R>({ recent, lastBlock }: ReceiptWatcherContext<R>, sent: WatchMark): boolean {
  if (sent.block === undefined || lastBlock === undefined) return false
  if (lastBlock <= sent.block) return true
  if (lastBlock - sent.block > BigInt(recent.length)) return false
  const kept = new Set(recent.map((b) => b.number))
  for (let n = sent.block + 1n; n <= lastBlock; n++) if (!kept.has(n)) return false
  return true
}
