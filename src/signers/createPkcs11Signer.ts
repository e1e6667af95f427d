// An EVM relayer key in a PKCS#11 token (an HSM; SoftHSM2 in tests): an EC key on secp256k1 whose
// private half is sensitive and never leaves the token. The address comes from the public key
// object's CKA_EC_POINT; each digest is signed with CKM_ECDSA (r || s). A token that fails to sign
// answers 503 (0x40) with Retry-After, before anything is journaled (openPkcs11Key.ts).
import { createRequire } from 'node:module'
import { bytesToHex, type LocalAccount } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import { openPkcs11Key, type Pkcs11KeyParameters } from './openPkcs11Key.ts'
import { toDigestSignerAccount } from './toDigestSignerAccount.ts'

export type Pkcs11SignerParameters = Pkcs11KeyParameters

export function createPkcs11Signer(parameters: Pkcs11SignerParameters): LocalAccount & { backend: string } {
  const lib = createRequire(import.meta.url)('pkcs11js') as typeof import('pkcs11js')
  const key = openPkcs11Key(parameters)
  const point = key.publicAttribute(lib.CKA_EC_POINT)
  // CKA_EC_POINT is the DER OCTET STRING of the uncompressed point: 0x04 0x41 0x04 X Y.
  const raw = point.length === 67 && point[0] === 0x04 ? point.subarray(2) : point
  if (raw.length !== 65 || raw[0] !== 0x04)
    throw new Error(`the key "${parameters.keyLabel}" is not an uncompressed EC point (a secp256k1 key is needed)`)
  const publicKey = bytesToHex(raw)
  return toDigestSignerAccount({
    address: publicKeyToAddress(publicKey),
    publicKey,
    backend: 'pkcs11',
    async signDigest(digest) {
      const signature = await key.sign(lib.CKM_ECDSA, digest, 64)
      return { r: BigInt(bytesToHex(signature.subarray(0, 32))), s: BigInt(bytesToHex(signature.subarray(32, 64))) }
    },
  })
}
