// Who signs intents: a viem account on EVM chains (a LocalAccount, or anything with
// signTypedData; with signAuthorization too, it can delegate its own EOA for account mode), an
// Ed25519 key on Solana (see createSolanaSigner).
import type { LocalAccount } from 'viem'

export type EvmIntentSigner = Pick<LocalAccount, 'address' | 'signTypedData'> &
  Partial<Pick<LocalAccount, 'signAuthorization'>>

export type SolanaIntentSigner = {
  chainType: 'solana'
  /** The signer's public key, base58. */
  address: string
  /** An Ed25519 signature of `message` (64 bytes). */
  signMessage(message: Uint8Array): Promise<Uint8Array>
}

export type IntentSigner = EvmIntentSigner | SolanaIntentSigner
