// Where one key lives, for every role (a runtime's relayer, the facilitator of a payment family, the
// deployer): in the process (`local`), or in a signer backend (src/signers/: a PKCS#11 token, KMS).
// The port names no backend: each backend's file adds the shape of its keys to HeldKeyFields, so
// that a backend's shape lives with the backend (a new backend is its file and a line in
// signers/keyBackends.ts), and KeySource stays a union its users narrow by `backend`. Read by
// config/ (signersConfig, through the backends it is handed) and opened by signers/
// (createEvmSigner, createEd25519Signer), nowhere else.
import type { Hex } from 'viem'

/**
 * The fields of a key held outside the process, by its backend's name. Empty here: each backend's
 * file declares its own (`declare module '../ports/keySource.ts' { interface HeldKeyFields { … } }`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: the backends' files fill it in (declaration merging).
export interface HeldKeyFields {}

/** A key in one of the backends, with its own fields. */
export type HeldKeySource = {
  [Backend in keyof HeldKeyFields]: { backend: Backend } & HeldKeyFields[Backend]
}[keyof HeldKeyFields]

/**
 * Where one key lives: in the process (`local`, `Secret` its form, absent where the role has none),
 * or in a backend.
 */
export type KeySource<Secret = never> = (
  | ([Secret] extends [never] ? never : { backend: 'local'; secret: Secret })
  | HeldKeySource
) & {
  /** The setting that named the key, for start-up problems. */
  setting: string
}

/** Where a secp256k1 key lives: in the process, its private key. */
export type EvmKeySource = KeySource<Hex>

/** Where a Solana or Sui relayer key, or the facilitator's Solana key (Ed25519), lives: in the process, its 32-byte seed. */
export type Ed25519KeySource = KeySource<Uint8Array>
