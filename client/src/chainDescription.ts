// A served chain as GET /chains/{chainId} describes it: enough to hash and sign intents for it.
import type { Address } from 'viem'
import type { ChainType } from './intentInput.ts'

export type ChainDescription = {
  chainId: string
  chainType: ChainType
  reference?: string
  name?: string
  nativeCurrency?: { name: string; symbol: string; decimals: number }
  /** EVM: the contracts (accountDelegate: the EIP-7702 delegate of account mode, where served); Solana: executor and validator are the program id, registry its config account; Sui: the package and the Hub. */
  contracts: { validator: string; executor: string; registry: string; accountDelegate?: string }
  relayer?: string
  available?: boolean
  unavailableReason?: string
  /** EVM: the EIP-712 domain, types and primary type; Solana and Sui: the scheme and what is signed. */
  signing?: {
    domain?: { name: string; version: string; chainId: number | string; verifyingContract: Address }
    types?: Record<string, readonly { name: string; type: string }[]>
    primaryType?: string
    scheme?: string
    message?: string
  }
  [key: string]: unknown
}

/** What hashing needs of a chain: its runtime, and on Solana the deployment the bytes are bound to. */
export type HashTarget = { chainType: ChainType; contracts?: { executor: string; registry: string } }
