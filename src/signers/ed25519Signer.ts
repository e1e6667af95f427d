// What a Solana or Sui relayer key is to its runtime, wherever it lives: its Ed25519 public key
// and a signer of messages. Each runtime wraps it in its SDK's own signer shape.

export type Ed25519Signer = {
  /** The 32-byte public key (a Solana address's bytes; a Sui address is derived from it). */
  publicKey: Uint8Array
  /** Where the key lives, for /chains and the logs: its backend's name (`local`, `pkcs11`, `kms`). Never the key. */
  backend: string
  /** The 64-byte Ed25519 signature of `message`; a backend that cannot sign now throws signerUnavailable (503 0x40). */
  sign(message: Uint8Array): Promise<Uint8Array>
}
