// The status of whichever of an intent's attempts landed, if one did.
import type { Reconciliation, SignedExecution } from '../../../ports/chainAdapter.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { signatureStatus } from './signatureStatus.ts'
import { toReceipt } from './toReceipt.ts'

export async function findLanded(ctx: SolanaContext, txs: readonly SignedExecution[]): Promise<Reconciliation | undefined> {
  for (const candidate of txs) {
    const status = await signatureStatus(ctx, candidate.id)
    if (status) return { kind: 'settled', receipt: toReceipt(ctx, candidate, status) }
  }
  return undefined
}
