// What a relayer is given to send, and what it answers.
import type { Address, Hex } from 'viem'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** `fees`: those the transaction was simulated with (default: the market's now). */
export type RelayedTransaction = { to: Address; data: Hex; gas: bigint; value?: bigint; fees?: Fees | undefined }

export type SendResult = {
  /** What `onSigned` was given. */
  transaction: SignedExecution
  transactionHash: Hex
  txNonce: number
  /** False when the broadcast's answer was lost (timeout, connection reset): the node may or may not have it. */
  accepted: boolean
}
