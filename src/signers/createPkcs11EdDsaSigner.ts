// A Solana or Sui relayer key in a PKCS#11 token: an Ed25519 key pair (CKK_EC_EDWARDS on the
// Ed25519 curve) generated inside the token, its private half sensitive and never read out. The
// public key is the public object's CKA_EC_POINT (the DER OCTET STRING of its 32 bytes, or the 32
// bytes as some tokens give them); messages are signed whole inside the token with CKM_EDDSA
// (pure Ed25519, what Solana and Sui verify). A failure or a timeout is a 503 (0x40).

import { createPublicKey, verify } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Ed25519Signer } from './ed25519Signer.ts'
import { openPkcs11Key, type Pkcs11KeyParameters } from './openPkcs11Key.ts'

/** PKCS#11 3.0's EdDSA mechanism (pkcs11js names no constant for it). */
export const CKM_EDDSA = 0x1057

/** DER SubjectPublicKeyInfo of an Ed25519 key, up to the 32 key bytes. */
const spkiPrefix = Buffer.from('302a300506032b6570032100', 'hex')

export type Pkcs11EdDsaSignerParameters = Pkcs11KeyParameters

export function createPkcs11EdDsaSigner(parameters: Pkcs11EdDsaSignerParameters): Ed25519Signer {
  const lib = createRequire(import.meta.url)('pkcs11js') as typeof import('pkcs11js')
  const key = openPkcs11Key(parameters)
  const point = key.publicAttribute(lib.CKA_EC_POINT)
  const raw = point.length === 34 && point[0] === 0x04 && point[1] === 0x20 ? point.subarray(2) : point
  if (raw.length !== 32)
    throw new Error(
      `the key "${parameters.keyLabel}" is not an Ed25519 key (its CKA_EC_POINT holds ${point.length} bytes)`,
    )
  const publicKey = Uint8Array.from(raw)
  const verifier = createPublicKey({ key: Buffer.concat([spkiPrefix, publicKey]), format: 'der', type: 'spki' })
  return {
    publicKey,
    backend: 'pkcs11',
    async sign(message) {
      const signature = await key.sign(CKM_EDDSA, message, 64)
      // A token that signs with another key (or another scheme) must not get a transaction out.
      if (signature.length !== 64 || !verify(null, message, verifier, signature))
        throw new Error(
          `the PKCS#11 key "${parameters.keyLabel}" gave a signature that does not verify for its public key`,
        )
      return Uint8Array.from(signature)
    },
  }
}
