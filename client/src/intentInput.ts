// The intent as a caller writes it (numbers as bigint, number or decimal string) and as the
// gateway takes it on the wire (decimal strings, docs/api-contract.md §1).
import type { Hex } from 'viem'

export type ChainType = 'evm' | 'solana' | 'sui'

/** One account of the target instruction on Solana (part of the Solana hash and signature). */
export type IntentAccountMeta = { address: string; signer: boolean; writable: boolean }

type Integer = bigint | number | string

export type IntentInput = {
  sender: string
  target: string
  /** Call data (EVM) or instruction data (Solana), 0x hex; `0x` when left out. */
  data?: Hex | string
  /** Wei, lamports or MIST; 0 when left out. */
  value?: Integer
  nonce: Integer
  /** Unix seconds; 0 (no bound) when left out. */
  validAfter?: Integer
  validBefore?: Integer
  policyId: Hex | string
  accounts?: IntentAccountMeta[]
  chainType?: ChainType
  /** The sender's (or a delegate's) signature, 0x hex; not part of the intent or its hash. */
  signature?: Hex | string
}

/** What POST /intents/validate and /intents/execute take. */
export type IntentBody = {
  sender: string
  target: string
  data: Hex
  value: string
  nonce: string
  validAfter: string
  validBefore: string
  policyId: Hex
  accounts?: IntentAccountMeta[]
  chainType?: ChainType
  signature?: Hex
}
