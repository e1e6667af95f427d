// The intent as a caller writes it (numbers as bigint, number or decimal string) and as the
// gateway takes it on the wire (decimal strings, docs/api-contract.md §1).
import type { Hex } from 'viem'

export type ChainType = 'evm' | 'solana' | 'sui'

/** One account of the target instruction on Solana (part of the Solana hash and signature). */
export type IntentAccountMeta = { address: string; signer: boolean; writable: boolean }

/**
 * EVM: who the intent runs as. `executor` (the gateway's default): through the executor contract,
 * paid from the sender's deposit. `account`: from the sender's own address through its EIP-7702
 * delegate (IntentAccount), signed under the domain { name: "IntentAccount", version: "1",
 * chainId, verifyingContract: sender }.
 */
export type IntentMode = 'executor' | 'account'

type Integer = bigint | number | string

/**
 * The sender's EIP-7702 authorization to this chain's account delegate, as viem's
 * `signAuthorization` returns it (its `v` is ignored). Only the first account-mode intent of an
 * EOA not delegated yet carries one.
 */
export type AuthorizationInput = {
  chainId: number
  address: string
  nonce: number
  yParity?: number | undefined
  r: Hex | string
  s: Hex | string
  v?: bigint | undefined
}

/** The authorization on the wire: numbers as JSON numbers, r and s as 32-byte hex. */
export type IntentAuthorization = { chainId: number; address: string; nonce: number; yParity: number; r: Hex; s: Hex }

/** One call of a batch (account mode): run from the sender's address, in order, all or nothing. */
export type CallInput = {
  target: string
  /** Call data, 0x hex; `0x` when left out. */
  data?: Hex | string
  /** Wei, from the sender's own balance; 0 when left out. */
  value?: Integer
}

export type CallBody = { target: string; data: Hex; value: string }

type IntentCommonInput = {
  sender: string
  nonce: Integer
  /** Unix seconds; 0 (no bound) when left out. */
  validAfter?: Integer
  validBefore?: Integer
  policyId: Hex | string
  accounts?: IntentAccountMeta[]
  chainType?: ChainType
  /** EVM: `account` runs the intent from the sender's own address (EIP-7702); left out: the gateway's default, `executor`. */
  mode?: IntentMode
  /** Account mode: the sender's EIP-7702 authorization (the client signs one itself when the account is not delegated). */
  authorization?: AuthorizationInput
  /** The sender's (or a delegate's) signature, 0x hex; not part of the intent or its hash. */
  signature?: Hex | string
}

/** An intent of one call, in either mode: the seed's shape. */
export type IntentInput = IntentCommonInput & {
  target: string
  /** Call data (EVM) or instruction data (Solana), 0x hex; `0x` when left out. */
  data?: Hex | string
  /** Wei, lamports or MIST; 0 when left out. */
  value?: Integer
  calls?: undefined
}

/** A batch (EVM account mode only): 1 to 16 calls instead of target/data/value. */
export type BatchIntentInput = IntentCommonInput & {
  calls: CallInput[]
  target?: undefined
  data?: undefined
  value?: undefined
}

/** Either form of intent. */
export type AnyIntentInput = IntentInput | BatchIntentInput

type IntentCommonBody = {
  sender: string
  nonce: string
  validAfter: string
  validBefore: string
  policyId: Hex
  accounts?: IntentAccountMeta[]
  chainType?: ChainType
  mode?: IntentMode
  authorization?: IntentAuthorization
  signature?: Hex
}

/** What POST /intents/validate and /intents/execute take for a single call. */
export type IntentBody = IntentCommonBody & { target: string; data: Hex; value: string; calls?: undefined }

/** What they take for a batch (account mode). */
export type BatchIntentBody = IntentCommonBody & {
  calls: CallBody[]
  target?: undefined
  data?: undefined
  value?: undefined
}

export type AnyIntentBody = IntentBody | BatchIntentBody
