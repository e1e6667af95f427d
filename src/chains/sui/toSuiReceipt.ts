// The effects of an executed (or failed) Sui transaction as the port's receipt.
import type { ExecutionReceipt } from '../../ports/chainAdapter.ts'
import { Status } from '../../status/statusCodes.ts'
import type { ExecutionErrorLike } from './decodeMoveAbort.ts'
import { statusOfSuiAbort } from './statusOfSuiAbort.ts'
import type { SuiContext } from './suiContext.ts'

export type SuiTransactionResult = { $kind: string; Transaction?: unknown; FailedTransaction?: unknown }

type Effects = {
  checkpoint: string | null
  effects?: { gasUsed?: { computationCost: string; storageCost: string; storageRebate: string } } | null
  status: { success: boolean; error: ExecutionErrorLike | null }
}

export function toSuiReceipt(ctx: SuiContext, digest: string, result: SuiTransactionResult): ExecutionReceipt {
  const tx = (result.$kind === 'Transaction' ? result.Transaction : result.FailedTransaction) as Effects
  const gas = tx.effects?.gasUsed
  const gasUsed = gas ? BigInt(gas.computationCost) + BigInt(gas.storageCost) - BigInt(gas.storageRebate) : 0n
  const base = {
    transactionHash: digest,
    blockNumber: BigInt(tx.checkpoint ?? 0),
    gasUsed,
    returnData: undefined,
    // What the relayer paid, in MIST (a rebate larger than the cost pays it back: nothing spent).
    fee: gas ? (gasUsed > 0n ? gasUsed : 0n) : undefined,
  }
  if (tx.status.success) return { ...base, state: 'mined', status: Status.EXECUTED, detail: undefined }
  const aborted = statusOfSuiAbort(ctx, tx.status.error)
  return {
    ...base,
    state: 'reverted',
    status: aborted?.status ?? Status.FAILURE,
    detail: aborted?.detail ?? tx.status.error?.message ?? 'the transaction failed on-chain',
  }
}
