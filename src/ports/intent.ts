// The intent as the domain sees it once the request body has been checked.
import type { Hex } from 'viem'
import type { ChainType } from './chainId.ts'

export type Intent = {
  sender: string
  target: string
  data: Hex
  value: bigint
  nonce: bigint
  validAfter: bigint
  validBefore: bigint
  policyId: Hex
  /**
   * The target instruction's account metas: Solana only (part of its signed bytes and hash); the
   * other runtimes refuse a non-empty list. Absent and empty are the same intent.
   */
  accounts?: IntentAccountMeta[] | undefined
  /**
   * A batch (EVM account mode only): 1 to 16 calls run in order, all or nothing, hashed and signed
   * as the account's BatchIntent. `target`, `data` and `value` then only summarize it for the
   * parts that look at one call (the guard's subject, logs): the first call's target, "0x", and
   * the summed value. Absent: a single-call intent, the seed's shape.
   */
  calls?: IntentCall[] | undefined
}

/** One call of a batch, in the order and shape of the contract's `Call(address target,uint256 value,bytes data)`. */
export type IntentCall = { target: string; value: bigint; data: Hex }

/**
 * An EIP-7702 authorization as the agent signed it (viem's `signAuthorization`): its account
 * delegates its code to `address` on `chainId` at its account nonce `nonce`.
 */
export type AccountAuthorization = { chainId: number; address: string; nonce: number; yParity: number; r: Hex; s: Hex }

/**
 * Account mode (`mode: "account"`, EVM): the intent runs from the sender's own address through its
 * EIP-7702 delegate, not through the executor. Not part of the intent nor of its hash.
 */
export type AccountMode = { authorization?: AccountAuthorization | undefined }

/** One account of the target instruction on Solana: its key and how the instruction uses it. */
export type IntentAccountMeta = { address: string; signer: boolean; writable: boolean }

/** The intent body as it arrives, after the route's JSON Schema has checked its shape. */
export type IntentBody = {
  sender: string
  /** Absent in a batch (`calls`); required otherwise. */
  target?: string
  data?: string
  value?: string
  /** Account mode: a batch of calls instead of target/data/value. */
  calls?: { target: string; data: string; value: string }[]
  nonce: string
  validAfter?: string
  validBefore?: string
  policyId: string
  accounts?: IntentAccountMeta[]
  chainType?: ChainType
  /** Not part of the intent (nor of its hash): the authorization that comes with it. */
  signature?: string
  /** Not part of the intent: how it runs (EVM). Absent or `executor`: through the executor. */
  mode?: 'executor' | 'account'
  /** Account mode: the sender's EIP-7702 authorization, for its first execute (undelegated). */
  authorization?: AccountAuthorization
}
