// What the journal records of a receipt, for the request that waited for it and the reconciler alike.
import type { ExecutionReceipt } from '../ports/chainAdapter.ts'
import type { Settlement } from '../ports/journal.ts'
import { Status } from '../status/statusCodes.ts'

/**
 * A revert that ran out of the gas this gateway chose is not the intent's outcome: its record is
 * dropped (the intent may be sent again, its payment stays a credit, its standing is untouched).
 */
export function fromReceipt(receipt: ExecutionReceipt): Settlement {
  // Account mode, mined without the intent's IntentExecuted from the sender (a skipped authorization): dropped too.
  const dropped = receipt.outOfGas === true || receipt.notExecuted === true
  return {
    state: dropped ? 'dropped' : receipt.state,
    status: receipt.outOfGas ? Status.GATEWAY_FAILURE : receipt.status,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    transactionId: receipt.transactionHash,
    gasUsed: receipt.gasUsed,
    returnData: receipt.returnData,
    detail: receipt.detail,
  }
}
