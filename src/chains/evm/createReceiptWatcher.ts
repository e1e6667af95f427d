// One watch over the chain's blocks for every execution waiting for its receipt: one block
// number read per interval however many transactions are in flight, and each new block's
// receipts read once (eth_getBlockReceipts), answering every transaction mined in it at the same
// moment. Per-transaction polling made every execution wait up to a whole poll interval after its
// block and loaded the node with one call per transaction per interval.
// Each operation is a function of the watcher's context (receiptWatcherContext.ts).
import type { Hex } from 'viem'
import {
  type CreateReceiptWatcherParameters,
  createReceiptWatcherContext,
  type WatchMark,
} from './receiptWatcherContext.ts'
import { closeReceiptWatch, markReceiptWatch, waitForReceipt } from './waitForReceipt.ts'

export type { CreateReceiptWatcherParameters, WatchMark } from './receiptWatcherContext.ts'

export type ReceiptWatcher<R> = {
  /** Where the watch stands, taken before a transaction is sent and handed to its wait. */
  mark(): WatchMark
  /**
   * The transaction's receipt once it is mined; rejects when the limit passes or the watcher
   * closes. `sent`: the mark taken before it was sent, so that a wait beginning after its block
   * was read and let go asks for it at once.
   */
  wait(hash: Hex, sent?: WatchMark): Promise<R>
  /** How many transactions are waited for now. */
  waiting(): number
  /** Rejects every wait (the gateway is closing: the reconciler of the next start takes over). */
  close(): void
}

export function createReceiptWatcher<R>(parameters: CreateReceiptWatcherParameters<R>): ReceiptWatcher<R> {
  const ctx = createReceiptWatcherContext(parameters)
  return {
    mark: () => markReceiptWatch(ctx),
    wait: (hash, sent) => waitForReceipt(ctx, hash, sent),
    waiting: () => ctx.waiting.size,
    close: () => closeReceiptWatch(ctx),
  }
}
