// A place a key can live, whole in one file under signers/ (keyBackends.ts lists them): the shape
// of its keys (added to ports/keySource.ts' HeldKeyFields), how a role's settings name them and
// what is wrong with them (KeyBackendSettings, which the configuration reads), and how it opens a
// secp256k1 key as a viem account and an Ed25519 key as a signer. Every role's keys (relayers,
// the facilitator, the deployer) are opened through the list.
import type { LocalAccount } from 'viem'
import type { KeyBackendSettings } from '../config/signersConfig.ts'
import type { Ed25519KeySource, EvmKeySource } from '../ports/keySource.ts'
import type { Ed25519Signer } from './ed25519Signer.ts'

export type KeyBackend = KeyBackendSettings & {
  /** A secp256k1 key as a viem account (asked only to sign digests where the key never leaves its place). */
  openEvm(source: EvmKeySource, options: { timeoutMs?: number }): Promise<LocalAccount & { backend: string }>
  /** An Ed25519 key (a Solana or Sui relayer's, the facilitator's Solana key). */
  openEd25519(source: Ed25519KeySource): Promise<Ed25519Signer>
}
