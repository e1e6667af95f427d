// Polls a sent transaction's status until it is confirmed, or its blockhash has expired unmined
// (rejects then: reconciliation takes over, and may re-sign it).
import type { ExecutionReceipt, SignedExecution } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext, SolanaTransactionDetails } from '../solanaContext.ts'
import { blockHeight } from './blockHeight.ts'
import { landedStatus } from './landedStatus.ts'
import { toReceipt } from './toReceipt.ts'

/** A receipt watch gives up after this long; reconciliation takes over. */
const receiptWatchLimitMs = 15 * 60_000

/** A success is believed once the intent's nonce record bears it out (landedStatus.ts). */
export async function watchSignature(
  ctx: SolanaContext,
  tx: SignedExecution,
  intent: Intent,
): Promise<ExecutionReceipt> {
  const id = tx.id
  const lastValidBlockHeight = BigInt((tx.details as SolanaTransactionDetails).lastValidBlockHeight)
  const started = Date.now()
  for (;;) {
    const status = await landedStatus(ctx, id, intent).catch(() => undefined)
    if (status) return toReceipt(ctx, tx, status)
    const height = await blockHeight(ctx).catch(() => undefined)
    if (height !== undefined && height > lastValidBlockHeight) {
      const late = await landedStatus(ctx, id, intent)
      if (late) return toReceipt(ctx, tx, late)
      throw new Error(
        `transaction ${id} expired unmined: its blockhash was valid up to block height ${lastValidBlockHeight}`,
      )
    }
    if (Date.now() - started > receiptWatchLimitMs)
      throw new Error(`transaction ${id} was not confirmed within ${receiptWatchLimitMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, ctx.confirmationPollMs))
  }
}
