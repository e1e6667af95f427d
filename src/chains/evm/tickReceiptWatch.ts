// One step of the watch, each interval while anything is waited for: waits past their limit end,
// the blocks since the last step are read (their receipts answering their waits), and now and
// then every waiting transaction is asked for alone.
import { type ReceiptWatcherContext, receiptKey } from './receiptWatcherContext.ts'
import { askAlone, settleReceipt } from './settleReceipts.ts'

export async function tickReceiptWatch<R>(ctx: ReceiptWatcherContext<R>): Promise<void> {
  if (ctx.ticking) return
  ctx.ticking = true
  try {
    ctx.ticks++
    expireWaits(ctx, Date.now())
    if (ctx.waiting.size === 0) return forgetBlocks(ctx)
    const head = await ctx.blockNumber()
    const from = ctx.lastBlock === undefined ? head : ctx.lastBlock + 1n
    ctx.lastBlock = head
    if (head >= from) {
      await readBlocks(ctx, from, head)
      ctx.onBlock?.()
    }
    if (ctx.ticks % ctx.recheckEvery === 0 && ctx.waiting.size > 0) await askAlone(ctx, [...ctx.waiting.keys()])
    if (ctx.waiting.size === 0) forgetBlocks(ctx)
  } catch (err) {
    // The next tick tries again; a transaction mined meanwhile is found by the recheck.
    forgetBlocks(ctx)
    ctx.onError?.(err)
  } finally {
    ctx.ticking = false
    scheduleTick(ctx)
  }
}

/** The next step after `delayMs`, unless one is due already or nothing is waited for. */
export function scheduleTick<R>(ctx: ReceiptWatcherContext<R>, delayMs = ctx.intervalMs): void {
  if (ctx.closed || ctx.waiting.size === 0 || ctx.timer) return
  ctx.timer = setTimeout(() => {
    ctx.timer = undefined
    void tickReceiptWatch(ctx)
  }, delayMs)
}

function expireWaits<R>({ waiting, limitMs }: ReceiptWatcherContext<R>, now: number) {
  for (const [hash, waiters] of waiting) {
    const live = waiters.filter((w) => w.deadline > now)
    for (const w of waiters) if (w.deadline <= now) w.reject(new Error(`no receipt for ${hash} within ${limitMs / 60_000} minutes; reconciliation settles it`))
    if (live.length === 0) waiting.delete(hash)
    else waiting.set(hash, live)
  }
}

async function readBlocks<R>(ctx: ReceiptWatcherContext<R>, from: bigint, head: bigint) {
  if (!ctx.byBlock || head - from >= BigInt(ctx.maxBlocksPerTick)) {
    await askAlone(ctx, [...ctx.waiting.keys()])
    return
  }
  for (let b = from; b <= head; b++) {
    const receipts = await ctx.blockReceipts(b)
    if (!receipts) {
      ctx.byBlock = false
      await askAlone(ctx, [...ctx.waiting.keys()])
      return
    }
    const byHash = new Map<string, R>()
    for (const r of receipts) {
      byHash.set(receiptKey(ctx.hashOf(r)), r)
      settleReceipt(ctx, ctx.hashOf(r), r)
    }
    ctx.recent.push(byHash)
    if (ctx.recent.length > ctx.recentBlocks) ctx.recent.shift()
  }
}

/** The watch starts again from the head at its next step. */
function forgetBlocks<R>(ctx: ReceiptWatcherContext<R>) {
  ctx.lastBlock = undefined
  ctx.recent.length = 0
}
