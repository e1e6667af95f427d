// A receipt found answers every wait for its transaction; transactions asked for one by one.
import type { Hex } from 'viem'
import { type ReceiptWatcherContext, receiptKey } from './receiptWatcherContext.ts'

export function settleReceipt<R>({ waiting }: ReceiptWatcherContext<R>, hash: string, r: R): void {
  const waiters = waiting.get(receiptKey(hash))
  if (!waiters) return
  waiting.delete(receiptKey(hash))
  for (const w of waiters) w.resolve(r)
}

/** Each transaction's receipt read alone; one not mined yet (or a failed read) keeps waiting. */
export async function askAlone<R>(ctx: ReceiptWatcherContext<R>, hashes: string[]): Promise<void> {
  await Promise.all(
    hashes.map(async (hash) => {
      const r = await ctx.receipt(hash as Hex).catch((err: unknown) => void ctx.onError?.(err))
      if (r) settleReceipt(ctx, hash, r)
    }),
  )
}
