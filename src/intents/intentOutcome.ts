// What validate and execute answer, before the HTTP layer turns it into a response.
import type { Hex } from 'viem'
import type { ChainType } from '../config/parseChainId.ts'

export type IntentOutcome = {
  /** The ERC-1066 byte; the HTTP status derives from it. */
  status: number
  intentHash: Hex
  chainId: string
  chainType: ChainType | undefined
  detail?: string | undefined
  execution?: ExecutionReport | undefined
}

export type ExecutionState = 'pending' | 'mined' | 'reverted' | 'failed'

export type ExecutionReport = {
  state: ExecutionState
  transactionHash: Hex | undefined
  blockNumber: bigint | undefined
  gasUsed: bigint | undefined
  returnData: Hex | undefined
}
