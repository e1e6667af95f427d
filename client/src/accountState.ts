// An EVM account as GET /accounts/{address} describes it: whether account-mode intents can run
// from it now (delegated to this chain's IntentAccount) or need an authorization first.
import type { Address } from 'viem'

export type AccountState = {
  address: Address
  /** CAIP-2, e.g. eip155:31337. */
  chainId: string
  /** This chain's account delegate (IntentAccount); null when the chain serves executor mode only. */
  accountDelegate: Address | null
  /** Its code is 0xef0100 ‖ this chain's delegate: account-mode intents run without an authorization. */
  delegated: boolean
  /** Where its EIP-7702 designator points (this chain's delegate or another), null without one. */
  delegatedTo: Address | null
  /** `none`: an EOA without code (its first account-mode intent carries an authorization); `delegation`: an EIP-7702 designator; `contract`: a contract (account mode refused). */
  code: 'none' | 'delegation' | 'contract'
  /** Its account nonce (transaction count), a decimal string: the nonce its next authorization must carry. */
  nonce: string
}
