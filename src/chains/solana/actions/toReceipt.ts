// The receipt of a transaction the chain has a status for.
import type { ExecutionReceipt } from '../../../ports/chainAdapter.ts'
import { Status } from '../../../status/statusCodes.ts'
import { decodeSolanaFailure } from '../decodeSolanaFailure.ts'
import type { SolanaContext } from '../solanaContext.ts'

export function toReceipt(ctx: SolanaContext, id: string, status: { slot: bigint; err: unknown }): ExecutionReceipt {
  const base = { transactionHash: id, blockNumber: BigInt(status.slot), gasUsed: 0n, returnData: undefined }
  if (!status.err) return { ...base, state: 'mined', status: Status.EXECUTED, detail: undefined }
  const failure = decodeSolanaFailure(status.err, undefined, ctx.chain.programId)
  return { ...base, state: 'reverted', status: failure.kind === 'status' ? failure.status : Status.FAILURE, detail: failure.detail }
}
