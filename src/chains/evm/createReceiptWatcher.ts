// One watch over the chain's blocks for every execution waiting for its receipt: one block
// number read per interval however many transactions are in flight, and each new block's
// receipts read once (eth_getBlockReceipts), answering every transaction mined in it at the same
// moment. Per-transaction polling made every execution wait up to a whole poll interval after its
// block and loaded the node with one call per transaction per interval.
// Each operation is a function of the watcher's context (receiptWatcherContext.ts).
import type { Hex } from 'viem'
import { type CreateReceiptWatcherParameters, createReceiptWatcherContext } from './receiptWatcherContext.ts'
import { closeReceiptWatch, forgetReceipt, noteBroadcast, waitForReceipt, whenPlaced } from './waitForReceipt.ts'

export type { CreateReceiptWatcherParameters } from './receiptWatcherContext.ts'

export type ReceiptWatcher<R> = {
  /**
   * The transaction's receipt once it is mined; rejects when the limit passes or the watcher
   * closes. Asked before the transaction is broadcast (`unsent`: signed and journaled), every block
   * that can hold it is read after its wait began, however late the broadcast's answer comes; its
   * recheck period and limit count from `broadcast`.
   */
  wait(hash: Hex, options?: { unsent?: boolean }): Promise<R>
  /**
   * Resolves once the watch has a place (a block number it read; every block after it is read):
   * a transaction waited for `unsent` and broadcast from then on is answered by the blocks it reads,
   * with no read of its own. Resolves now while the watch runs; after a lull, once its first step
   * read the head (or failed: then the recheck finds it).
   */
  placed(): Promise<void>
  /** Tells that a transaction waited for was broadcast: its recheck period counts from now. */
  broadcast(hash: Hex): void
  /** Stops waiting for a transaction that was never broadcast (the node refused it); its wait never settles. */
  forget(hash: Hex): void
  /** How many transactions are waited for now. */
  waiting(): number
  /** Rejects every wait (the gateway is closing: the reconciler of the next start takes over). */
  close(): void
}

export function createReceiptWatcher<R>(parameters: CreateReceiptWatcherParameters<R>): ReceiptWatcher<R> {
  const ctx = createReceiptWatcherContext(parameters)
  return {
    wait: (hash, options) => waitForReceipt(ctx, hash, options?.unsent),
    placed: () => whenPlaced(ctx),
    broadcast: (hash) => noteBroadcast(ctx, hash),
    forget: (hash) => forgetReceipt(ctx, hash),
    waiting: () => ctx.waiting.size,
    close: () => closeReceiptWatch(ctx),
  }
}
