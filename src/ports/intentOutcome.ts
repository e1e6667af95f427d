// What validate and execute answer, before the HTTP layer turns it into a response.
import type { Hex } from 'viem'
import type { FieldError } from '../errors/inputError.ts'
import type { ChainType } from './chainId.ts'

export type IntentOutcome = {
  /** The ERC-1066 byte; the HTTP status derives from it. */
  status: number
  intentHash: Hex
  chainId: string
  chainType: ChainType | undefined
  detail?: string | undefined
  execution?: ExecutionReport | undefined
  /** With 0xE4 and 0xE5: what the sender must sign (the chain's SigningRequest). */
  signing?: Record<string, unknown> | undefined
  /** A repeat of an intent this gateway sent: its one outcome, answered again (nothing sent or charged). */
  replayed?: boolean | undefined
  /** A refusal of the gateway's own limits: the problem type (`urn:intent-gateway:problem:…`) and seconds to wait. */
  problemType?: string | undefined
  retryAfterSeconds?: number | undefined
  /** A refusal that concerns one part of the intent: that field (a batch's call: `calls[i]`). */
  errors?: FieldError[] | undefined
  /**
   * What became of this request's payment, when the answer must say it: `credited`, settled and
   * kept as this intent's credit because the execution was refused after the settlement (a repeat
   * of the intent uses it; nothing is paid again).
   */
  payment?: { status: 'credited'; detail: string } | undefined
  /** HTTP: the request's RFC 7240 preferences this answer honoured (`Preference-Applied`). */
  preferenceApplied?: string | undefined
  /**
   * An execution answered before it was final (202 0xF3): its report once this process has its
   * receipt and has journaled it (what may use up its payment then); undefined if the watch failed.
   * Never rejects, never sent.
   */
  executionLater?: Promise<ExecutionReport | undefined> | undefined
}

/**
 * `pending`: signed and handed to the chain, not confirmed yet. `mined`: executed. `reverted`: mined
 * without effect. `dropped`: the transaction left the chain's pool or was replaced by another at
 * the relayer's nonce, so the intent did not run through it (the record says whether it ran at all).
 */
export type ExecutionState = 'pending' | 'mined' | 'reverted' | 'dropped'

export type ExecutionReport = {
  state: ExecutionState
  /** The chain's transaction id (EVM: 0x hash; Sui: base58 digest; Solana: base58 signature). */
  transactionHash: string | undefined
  blockNumber: bigint | undefined
  gasUsed: bigint | undefined
  returnData: Hex | undefined
  /**
   * Whether the outcome is final: settled (mined or reverted) and CONFIRMATIONS blocks deep, or
   * dropped. A mined execution that is not final is answered 202 (0xF3): a reorg can still undo it.
   */
  final?: boolean | undefined
  /** The confirmation depth of the chain, when it is above 1. */
  confirmationsRequired?: number | undefined
}
