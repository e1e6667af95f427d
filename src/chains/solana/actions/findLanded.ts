// The status of whichever of an intent's attempts landed, if one did.
import type { Reconciliation, SignedExecution } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { landedStatus } from './landedStatus.ts'
import { toReceipt } from './toReceipt.ts'

/** A success is believed once the intent's nonce record bears it out (landedStatus.ts). */
export async function findLanded(
  ctx: SolanaContext,
  txs: readonly SignedExecution[],
  intent: Intent,
): Promise<Reconciliation | undefined> {
  for (const candidate of txs) {
    const status = await landedStatus(ctx, candidate.id, intent)
    if (status) return { kind: 'settled', receipt: toReceipt(ctx, candidate, status) }
  }
  return undefined
}
