// What a place a key can live is to signers/ (keyBackends.ts lists them): how it opens a
// secp256k1 key as a viem account and an Ed25519 key as a signer, from its KeySource
// (ports/keySource.ts, where its file adds the shape of its keys). Every role's keys (relayers,
// the facilitator, the deployer) are opened through the list.
import type { LocalAccount } from 'viem'
import type { Ed25519KeySource, EvmKeySource } from '../ports/keySource.ts'
import type { Ed25519Signer } from './ed25519Signer.ts'

export type KeyBackend = {
  /** The `backend` of the KeySources it opens (`local`, `pkcs11`, `kms`). */
  backend: string
  /** Whether several of its keys may be opened at once (KMS, over the network), or one after another (a token's session). */
  opensTogether: boolean
  /** A secp256k1 key as a viem account (asked only to sign digests where the key never leaves its place). */
  openEvm(source: EvmKeySource, options: { timeoutMs?: number }): Promise<LocalAccount & { backend: string }>
  /** An Ed25519 key (a Solana or Sui relayer's, the facilitator's Solana key). */
  openEd25519(source: Ed25519KeySource): Promise<Ed25519Signer>
}
