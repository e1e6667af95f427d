// The Sui relayer's key as @mysten/sui signs with it: a Signer over an Ed25519Signer (a PKCS#11
// token, KMS). The SDK hashes the intent message (blake2b of intent || transaction bytes) and asks
// for the Ed25519 signature of that 32-byte digest, which the key's backend makes.
import { Signer } from '@mysten/sui/cryptography'
import { Ed25519PublicKey } from '@mysten/sui/keypairs/ed25519'
import type { Ed25519Signer } from '../../signers/ed25519Signer.ts'

class RemoteEd25519Signer extends Signer {
  readonly #signer: Ed25519Signer
  readonly #publicKey: Ed25519PublicKey
  constructor(signer: Ed25519Signer) {
    super()
    this.#signer = signer
    this.#publicKey = new Ed25519PublicKey(signer.publicKey)
  }
  async sign(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
    return Uint8Array.from(await this.#signer.sign(bytes))
  }
  getKeyScheme() {
    return 'ED25519' as const
  }
  getPublicKey() {
    return this.#publicKey
  }
}

export function toSuiSigner(signer: Ed25519Signer): Signer {
  return new RemoteEd25519Signer(signer)
}
