// A wait for one transaction's receipt joins the watch (starting it when it is the first), and
// closing the watch ends every wait.
import type { Hex } from 'viem'
import { type ReceiptWatcherContext, receiptKey } from './receiptWatcherContext.ts'
import { askAlone } from './settleReceipts.ts'
import { scheduleTick } from './tickReceiptWatch.ts'

export function waitForReceipt<R>(ctx: ReceiptWatcherContext<R>, hash: Hex): Promise<R> {
  if (ctx.closed) return Promise.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
  const { waiting } = ctx
  // A watch starting from nothing reads the head now, so that it starts from this moment's block.
  const fresh = waiting.size === 0 && !ctx.ticking
  for (const block of ctx.recent) {
    const r = block.get(receiptKey(hash))
    if (r) return Promise.resolve(r)
  }
  const promise = new Promise<R>((resolve, reject) => {
    const waiters = waiting.get(receiptKey(hash)) ?? []
    waiters.push({ resolve, reject, deadline: Date.now() + ctx.limitMs })
    waiting.set(receiptKey(hash), waiters)
  })
  // A transaction mined before a running watch's last block read is in its recent blocks
  // (above) or older; one mined before a watch began is in no block the watch will read.
  // Either way it is asked for alone once, at once, after registering.
  if (fresh || ctx.recent.length === 0 || ctx.lastBlock === undefined) void askAlone(ctx, [hash])
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
  for (const [hash, waiters] of ctx.waiting) for (const w of waiters) w.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
  ctx.waiting.clear()
}
