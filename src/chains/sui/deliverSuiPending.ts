// Before a key taken over signs anything: the transactions its last holder journaled and left
// pending are delivered first (looked up, or broadcast again with the same bytes). One of them may
// have reached validators unanswered: a new transaction on the same gas coin version would then
// be a second spend of that version (equivocation, the coin locked until the epoch ends), whereas
// the same bytes again are the same transaction. The reconciler settles their records after.
import { reconcileSuiTransaction } from './reconcileSuiTransaction.ts'
import type { SuiContext } from './suiContext.ts'

export async function deliverSuiPending(ctx: SuiContext, relayer: string): Promise<void> {
  if (!ctx.catchUp || !ctx.journal) return
  const pending = await ctx.journal.pending({ chainId: ctx.chainId, relayer })
  for (const record of pending) {
    if (!record.transaction) continue
    const outcome = await reconcileSuiTransaction(ctx, { ...record.transaction, intent: record.intent })
    ctx.log.info(
      { transactionHash: record.transaction.id, outcome: outcome.kind },
      'a pending transaction of the key taken over was delivered before signing again',
    )
  }
  // Under the send lock: nothing new was signed meanwhile.
  ctx.catchUp = false
}
