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
}

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
  target: string
  data: string
  value: string
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
