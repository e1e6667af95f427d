// One step of the watch, each interval while anything is waited for (more often around the next
// block's due time: blockPace.ts): waits past their limit end, the blocks since the last step are
// read (their receipts answering their waits), and every recheck period each transaction waited
// for longer than that is asked for alone. When nothing is waited for the steps stop, and the
// watch keeps its place for the next wait (waitForReceipt.ts). A step that fails keeps the watch's
// place at the last block it read whole: the next step reads on from there, so a failed read of
// the node skips no block (it used to start again from the head, leaving what the skipped blocks
// mined to the recheck, 5 s and more later).
import { nextDueIn, nextReadDelay, noteHead, spacingOf } from './blockPace.ts'
import { type ReceiptWatcherContext, receiptKey } from './receiptWatcherContext.ts'
import { askAlone, settleReceipt } from './settleReceipts.ts'

export async function tickReceiptWatch<R>(ctx: ReceiptWatcherContext<R>): Promise<void> {
  if (ctx.ticking) return
  ctx.ticking = true
  try {
    const now = Date.now()
    expireWaits(ctx, now)
    if (ctx.waiting.size === 0) return placed(ctx)
    const head = await ctx.blockNumber()
    noteHead(ctx.pace, head, Date.now())
    const from = ctx.lastBlock === undefined ? head : ctx.lastBlock + 1n
    // The watch's place: every block after it is read, by this step or (where it fails) the next.
    // A head behind it (the chain went back: a reorg, a devnet reset) moves it back.
    ctx.lastBlock = head >= from ? from - 1n : head
    ctx.lastStepAt = now
    placed(ctx)
    if (head >= from) {
      await readBlocks(ctx, from, head)
      const spacing = spacingOf(ctx.pace)
      ctx.onBlock?.(spacing, nextDueIn(ctx.pace, Date.now(), spacing))
    }
    if (now - ctx.recheckedAt >= ctx.recheckEvery * ctx.intervalMs && ctx.waiting.size > 0) {
      ctx.recheckedAt = now
      await askAlone(ctx, overdue(ctx, now))
    }
  } catch (err) {
    // The next step reads on from the watch's place (the last block read whole); a block the node
    // keeps failing is left behind once the gap passes `maxBlocksPerTick` (each transaction is then
    // asked for alone), and the recheck finds what no read showed. A broadcast held for a place the
    // watch never had (its first head read failed) goes: the recheck finds it.
    placed(ctx)
    ctx.onError?.(err)
  } finally {
    ctx.ticking = false
    scheduleTick(ctx)
  }
}

/** The next step after `delayMs` (else the chain's pace says when), unless one is due already or nothing is waited for. */
export function scheduleTick<R>(ctx: ReceiptWatcherContext<R>, delayMs?: number): void {
  if (ctx.closed || ctx.waiting.size === 0 || ctx.timer) return
  const delay = delayMs ?? nextReadDelay(ctx.pace, Date.now(), ctx.intervalMs)
  ctx.timer = setTimeout(() => {
    ctx.timer = undefined
    void tickReceiptWatch(ctx)
  }, delay)
}

// Run at every step, over every wait (200 and more under load, a step every few ms around a
// block's due time), where nearly always none has expired: it allocates nothing then (no entry
// pairs, no copies). It copied every wait's list at every step: ~1.8 KiB an execute at 200 in
// flight (bench/allocExecute.ts), kept until the next step.
function expireWaits<R>({ waiting, limitMs }: ReceiptWatcherContext<R>, now: number) {
  waiting.forEach((waiters, hash) => {
    if (!anyExpired(waiters, now)) return
    const live = waiters.filter((w) => w.deadline > now)
    for (const w of waiters)
      if (w.deadline <= now)
        w.reject(new Error(`no receipt for ${hash} within ${limitMs / 60_000} minutes; reconciliation settles it`))
    if (live.length === 0) waiting.delete(hash)
    else waiting.set(hash, live)
  })
}

function anyExpired(waiters: readonly { deadline: number }[], now: number): boolean {
  for (const w of waiters) if (w.deadline <= now) return true
  return false
}

async function readBlocks<R>(ctx: ReceiptWatcherContext<R>, from: bigint, head: bigint) {
  if (!ctx.byBlock || head - from >= BigInt(ctx.maxBlocksPerTick)) {
    await askAlone(ctx, [...ctx.waiting.keys()])
    ctx.lastBlock = head
    return
  }
  for (let b = from; b <= head; b++) {
    const receipts = await ctx.blockReceipts(b)
    if (!receipts) {
      ctx.byBlock = false
      await askAlone(ctx, [...ctx.waiting.keys()])
      ctx.lastBlock = head
      return
    }
    const byHash = new Map<string, R>()
    for (const r of receipts) {
      byHash.set(receiptKey(ctx.hashOf(r)), r)
      settleReceipt(ctx, ctx.hashOf(r), r)
    }
    ctx.recent.push(byHash)
    if (ctx.recent.length > ctx.recentBlocks) ctx.recent.shift()
    ctx.lastBlock = b
  }
}

/**
 * The transactions waited for at least one recheck period (`recheckEvery` intervals): a younger
 * one's block is still to be read, or was read a moment ago; the next recheck asks for it.
 */
function overdue<R>({ waiting, limitMs, recheckEvery, intervalMs }: ReceiptWatcherContext<R>, now: number): string[] {
  const since = now - recheckEvery * intervalMs
  return [...waiting].filter(([, waiters]) => waiters.some((w) => w.deadline - limitMs <= since)).map(([hash]) => hash)
}

/** What waited for the watch to have a place goes on. */
export function placed<R>(ctx: ReceiptWatcherContext<R>) {
  for (const go of ctx.placing.splice(0)) go()
}

/** The watch starts again from the head at its next step. */
export function forgetBlocks<R>(ctx: ReceiptWatcherContext<R>) {
  ctx.lastBlock = undefined
  ctx.recent.length = 0
}
