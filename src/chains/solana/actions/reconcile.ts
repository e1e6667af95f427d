// What became of a journaled transaction. Landed (it or an earlier attempt): settled. Its
// blockhash still valid: broadcast again. Expired unmined: it can never land, so while the intent
// may still run it is `refused` (the reconciler asks for a replacement, see replacement.ts);
// otherwise dropped, saying whether the intent ran through another transaction.
import type { ReconcileRequest, Reconciliation } from '../../../ports/chainAdapter.ts'
import { isSuccessStatus } from '../../../status/statusCodes.ts'
import type { SolanaContext, SolanaTransactionDetails } from '../solanaContext.ts'
import { assertAvailable } from './assertAvailable.ts'
import { blockHeight } from './blockHeight.ts'
import { broadcastTransaction } from './broadcastTransaction.ts'
import { findLanded } from './findLanded.ts'
import { nonceRecordOf } from './nonceRecordOf.ts'
import { validateIntent } from './validateIntent.ts'

export async function reconcile(ctx: SolanaContext, tx: ReconcileRequest): Promise<Reconciliation> {
  assertAvailable(ctx)
  const attempts = [tx, ...(tx.replaced ?? [])]
  const settled = await findLanded(ctx, attempts, tx.intent)
  if (settled) return settled
  const lastValid = BigInt((tx.details as SolanaTransactionDetails).lastValidBlockHeight)
  if ((await blockHeight(ctx)) > lastValid) {
    // It can never land now; it may have been mined between the two reads, so look once more.
    const late = await findLanded(ctx, attempts, tx.intent)
    if (late) return late
    const record = await nonceRecordOf(ctx, tx.intent)
    const executed = record?.state === 'executed' && record.intentHash === ctx.runtime.hashIntent(tx.intent)
    // The sender's signature does not depend on the blockhash: while the intent may still run,
    // the relayer signs it again with a fresh one, as a new attempt (see replacement.ts). Not in
    // account mode: the agent signed that very transaction, and only the agent signs another.
    const accountMode = (tx.details as SolanaTransactionDetails).mode === 'account'
    if (
      !executed &&
      !accountMode &&
      ctx.relayer &&
      !tx.otherInstance &&
      isSuccessStatus(await validateIntent(ctx, tx.intent))
    ) {
      return {
        kind: 'refused',
        detail: `transaction ${tx.id} expired unmined (its blockhash was valid up to block height ${lastValid}); to be re-signed with a fresh blockhash`,
      }
    }
    return {
      kind: 'dropped',
      executed,
      detail: executed
        ? `transaction ${tx.id} expired unmined; the intent was executed by another transaction`
        : `transaction ${tx.id} expired unmined (its blockhash was valid up to block height ${lastValid}); the intent was not executed and may be sent again${accountMode ? ' (account mode: the agent signs a fresh message)' : ''}`,
    }
  }
  await broadcastTransaction(ctx, tx.bytes)
  ctx.log.warn({ transactionHash: tx.id }, 'a journaled transaction was not confirmed; broadcast it again')
  return { kind: 'rebroadcast' }
}
