// One block watch per chain answers every execution's receipt wait: a new block's receipts read
// once (eth_getBlockReceipts, one receipt read per waiting transaction where the node lacks it).
import type { Logger } from 'pino'
import {
  BaseError,
  formatTransactionReceipt,
  numberToHex,
  type PublicClient,
  type RpcTransactionReceipt,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem'
import type { EndpointPool } from '../../createEndpointPool.ts'
import { createReceiptWatcher, type ReceiptWatcher } from '../createReceiptWatcher.ts'
import { isUnknownMethod } from './nodeErrors.ts'

/** How long a request's own watch on its transaction lasts; reconciliation takes over after it. */
const receiptWatchLimitMs = 15 * 60_000
const receiptWatchWarnEveryMs = 60_000

export function watchReceipts({
  client,
  pool,
  log,
  pollingIntervalMs,
  onBlock,
}: {
  client: PublicClient
  pool: EndpointPool
  log: Logger
  pollingIntervalMs: number
  onBlock?: (spacingMs: number | undefined, dueInMs?: number) => void
}): ReceiptWatcher<TransactionReceipt> {
  let warnedAt = Number.NEGATIVE_INFINITY
  // One block watch answers every execution's receipt wait (reconciliation takes over after the limit).
  return createReceiptWatcher<TransactionReceipt>({
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async blockReceipts(blockNumber) {
      try {
        const raw = (await pool.request({ method: 'eth_getBlockReceipts', params: [numberToHex(blockNumber)] })) as
          | RpcTransactionReceipt[]
          | null
        // null: this endpoint does not have the block yet (one behind another of the pool): the
        // watch reads it again at its next step rather than take it for a block that mined nothing.
        if (raw === null) throw new Error(`the node has no block ${blockNumber} yet`)
        return raw.map((r) => formatTransactionReceipt(r))
      } catch (err) {
        if (isUnknownMethod(err)) return undefined
        throw err
      }
    },
    receipt: (hash) =>
      client.getTransactionReceipt({ hash }).catch((err: unknown) => {
        if (err instanceof BaseError && err.walk((e) => e instanceof TransactionReceiptNotFoundError)) return undefined
        throw err
      }),
    hashOf: (r) => r.transactionHash,
    intervalMs: pollingIntervalMs,
    limitMs: receiptWatchLimitMs,
    onError: (err) => {
      // At warn once a minute (a node that fails every step would otherwise fill the log), else at debug.
      const now = Date.now()
      if (now - warnedAt < receiptWatchWarnEveryMs)
        return log.debug({ err }, 'receipt watch: a read failed; trying again')
      warnedAt = now
      log.warn({ err }, 'receipt watch: a read failed; trying again from the last block read')
    },
    ...(onBlock ? { onBlock } : {}),
  })
}
