// An Ed25519 key given as its 32-byte seed (Solana's private key), used synchronously with
// node:crypto: its base58 address, and a signature. The adapter names its relayer with it; the
// devnet signs its demo intents with it.
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto'
import { type Address, getBase58Decoder } from '@solana/kit'

/** PKCS#8 DER of an Ed25519 private key, up to the 32-byte seed. */
const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex')

function privateKeyOf(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes')
  return createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' })
}

export const ed25519Seed = {
  address(seed: Uint8Array): Address {
    const spki = createPublicKey(privateKeyOf(seed)).export({ format: 'der', type: 'spki' })
    return getBase58Decoder().decode(spki.subarray(spki.length - 32)) as Address
  },
  /** The 64-byte Ed25519 signature of `message`. */
  sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
    return Uint8Array.from(sign(null, message, privateKeyOf(seed)))
  },
}
