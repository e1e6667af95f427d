// The receipt of a transaction the chain has a status for.
import type { ExecutionReceipt, SignedExecution } from '../../../ports/chainAdapter.ts'
import { Status } from '../../../status/statusCodes.ts'
import { decodeSolanaFailure } from '../decodeSolanaFailure.ts'
import { signatureInstructionOf } from '../signatureInstructionOf.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { solanaFeeOf } from '../solanaFeeOf.ts'

export function toReceipt(
  ctx: SolanaContext,
  tx: Pick<SignedExecution, 'id' | 'bytes'>,
  status: { slot: bigint; err: unknown },
): ExecutionReceipt {
  const id = tx.id
  // What the relayer paid, landed or failed: budgets and standing count it as they count EVM's.
  const base = {
    transactionHash: id,
    blockNumber: BigInt(status.slot),
    gasUsed: 0n,
    returnData: undefined,
    fee: solanaFeeOf(tx.bytes),
  }
  if (!status.err) return { ...base, state: 'mined', status: Status.EXECUTED, detail: undefined }
  const failure = decodeSolanaFailure(status.err, undefined, ctx.chain.programId, signatureInstructionOf(tx.bytes))
  return {
    ...base,
    state: 'reverted',
    status: failure.kind === 'status' ? failure.status : Status.FAILURE,
    detail: failure.detail,
  }
}
