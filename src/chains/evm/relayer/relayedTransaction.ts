// What a relayer is given to send, and what it answers.
import type { Address, Hex } from 'viem'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** `fees`: those the transaction was simulated with (default: the market's now). */
/** `authorizationList`: account mode's one EIP-7702 authorization, checked by the gateway (a type-4 transaction); else EIP-1559. */
export type RelayedTransaction = {
  to: Address
  data: Hex
  gas: bigint
  value?: bigint
  fees?: Fees | undefined
  authorizationList?:
    | readonly { chainId: number; address: Address; nonce: number; yParity: number; r: Hex; s: Hex }[]
    | undefined
}

export type SendResult = {
  /** What `onSigned` was given. */
  transaction: SignedExecution
  transactionHash: Hex
  txNonce: number
  /** False when the broadcast's answer was lost (timeout, connection reset): the node may or may not have it. */
  accepted: boolean
}
