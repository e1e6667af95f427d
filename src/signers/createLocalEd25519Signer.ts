// An Ed25519 relayer key held in the process (from the environment: the devnet's way), signed
// with node:crypto: the baseline the other backends are measured against.
import { createPrivateKey, createPublicKey, sign } from 'node:crypto'
import type { Ed25519Signer } from './ed25519Signer.ts'

/** PKCS#8 DER of an Ed25519 private key, up to the 32-byte seed. */
const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex')

export function createLocalEd25519Signer(seed: Uint8Array): Ed25519Signer {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes')
  const privateKey = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' })
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
  return {
    publicKey: Uint8Array.from(spki.subarray(spki.length - 32)),
    backend: 'local',
    sign: async (message) => Uint8Array.from(sign(null, message, privateKey)),
  }
}
