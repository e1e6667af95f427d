// An Ed25519 key given as its 32-byte seed (Solana's private key), used synchronously with
// node:crypto: its public key, and a signature. The adapter names its relayer with it, the config
// checks a keypair with it, the devnet signs its demo intents with it. No @solana/kit here: the
// config loads it.
import { createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto'

/** PKCS#8 DER of an Ed25519 private key, up to the 32-byte seed. */
const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex')

function privateKeyOf(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes')
  return createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' })
}

export const ed25519Seed = {
  /** The 32-byte public key (a Solana address's bytes). */
  publicKey(seed: Uint8Array): Uint8Array {
    const spki = createPublicKey(privateKeyOf(seed)).export({ format: 'der', type: 'spki' })
    return Uint8Array.from(spki.subarray(spki.length - 32))
  },
  /** The 64-byte Ed25519 signature of `message`. */
  sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
    return Uint8Array.from(sign(null, message, privateKeyOf(seed)))
  },
}
