// A transaction's receipt once the node knows it (a checkpoint, or the answer to a lost
// broadcast); the request's own watch, ended on close, after which reconciliation takes over.
import type { ExecutionReceipt } from '../../ports/chainAdapter.ts'
import type { SuiContext } from './suiContext.ts'
import { toSuiReceipt } from './toSuiReceipt.ts'

const receiptWatchLimitMs = 15 * 60_000

export async function watchSuiTransaction(ctx: SuiContext, digest: string): Promise<ExecutionReceipt> {
  const found = await ctx.client.core.waitForTransaction({
    digest,
    include: { effects: true },
    timeout: receiptWatchLimitMs,
    signal: ctx.watches.signal,
  })
  return toSuiReceipt(ctx, digest, found)
}
