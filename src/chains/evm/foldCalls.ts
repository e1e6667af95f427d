// The turn's reads, grouped by the block they read and folded into aggregates of a bounded size,
// spread over several where there are many.
import { aggregateCalls, callAlone } from './aggregateCalls.ts'
import type { CallBatcherContext, Pending } from './callBatcherContext.ts'

/** At the end of the turn: every waiting read goes. */
export function flushCalls(ctx: CallBatcherContext): void {
  ctx.scheduled = false
  const calls = ctx.queue
  ctx.queue = []
  // The first reads wait for the answer to whether Multicall3 is there (one round trip, once).
  if (ctx.present === undefined && ctx.checking) void ctx.checking.then(() => dispatch(ctx, calls))
  else dispatch(ctx, calls)
}

function dispatch(ctx: CallBatcherContext, calls: Pending[]) {
  for (const same of byBlock(calls)) {
    const size = Math.min(ctx.maxCalls, Math.max(2, Math.ceil(same.length / ctx.spread)))
    for (let i = 0; i < same.length; i += size) foldCalls(ctx, same.slice(i, i + size))
  }
}

/** Calls on one block: in one aggregate3 where there is Multicall3 and more than one call. */
export function foldCalls(ctx: CallBatcherContext, group: Pending[]): void {
  if (group.length === 1 || !ctx.present) for (const c of group) callAlone(ctx, c)
  else void aggregateCalls(ctx, group)
}

/** Calls grouped by the block they read (most often all at the latest). */
export function byBlock(calls: Pending[]): Pending[][] {
  if (calls.every((c) => c.at === calls[0]!.at)) return [calls]
  const groups = new Map<Pending['at'], Pending[]>()
  for (const c of calls) {
    const group = groups.get(c.at)
    if (group) group.push(c)
    else groups.set(c.at, [c])
  }
  return [...groups.values()]
}
