// One read into the turn's queue: folded with the turn's other reads at its end, or at once when
// enough wait on a chain known to have Multicall3.
import type { Address, Hex } from 'viem'
import type { CallBatcherContext } from './callBatcherContext.ts'
import { detectMulticall3 } from './detectMulticall3.ts'
import { byBlock, flushCalls, foldCalls } from './foldCalls.ts'

export function queueCall(
  ctx: CallBatcherContext,
  { to, data, at }: { to: Address; data: Hex; at?: Hex | undefined },
): Promise<Hex> {
  detectMulticall3(ctx)
  return new Promise<Hex>((resolve, reject) => {
    ctx.queue.push({ to, data, at, resolve, reject })
    if (ctx.present === true && ctx.queue.length >= ctx.foldAt) {
      const full = ctx.queue
      ctx.queue = []
      for (const same of byBlock(full)) foldCalls(ctx, same)
      return
    }
    if (!ctx.scheduled) {
      ctx.scheduled = true
      // The same turn as the JSON-RPC client's batching: reads made by requests parsed in one
      // I/O phase travel together.
      setImmediate(flushCalls, ctx)
    }
  })
}
