// A viem account whose key never enters the process: it only asks a signer (a KMS, an HSM) to sign
// 32-byte digests. ECDSA signatures come back as (r, s), normalised here to low s (what Ethereum
// accepts), and the recovery id is found by recovering the public key from each candidate (with
// the native secp256k1 binding: viem's JavaScript recovery cost ~5 ms a signature in the bench), as
// a signer that does not know Ethereum gives none.
import secp256k1 from 'secp256k1'
import {
  type Address,
  bytesToHex,
  type Hex,
  hashMessage,
  hashTypedData,
  keccak256,
  type LocalAccount,
  serializeTransaction,
  toHex,
} from 'viem'
import { toAccount } from 'viem/accounts'

const secp256k1N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

export type DigestSigner = {
  address: Address
  /** The uncompressed public key, 0x04 + X + Y. */
  publicKey: Hex
  /** The signer's ECDSA signature (r, s) of a 32-byte digest, s in either half. */
  signDigest(digest: Uint8Array): Promise<{ r: bigint; s: bigint }>
  /** Where the key lives, for /chains and the logs: `kms`, `pkcs11`. */
  backend: string
}

export function toDigestSignerAccount(signer: DigestSigner): LocalAccount & { backend: string } {
  const publicKey = Buffer.from(signer.publicKey.slice(2), 'hex')
  async function sign(hash: Hex): Promise<{ r: Hex; s: Hex; yParity: number }> {
    const digest = Buffer.from(hash.slice(2), 'hex')
    const raw = await signer.signDigest(digest)
    const s = raw.s > secp256k1N / 2n ? secp256k1N - raw.s : raw.s
    const r = toHex(raw.r, { size: 32 })
    const sHex = toHex(s, { size: 32 })
    const compact = Buffer.from(r.slice(2) + sHex.slice(2), 'hex')
    for (const yParity of [0, 1]) {
      let recovered: Uint8Array | undefined
      try {
        recovered = secp256k1.ecdsaRecover(compact, yParity, digest, false)
      } catch {
        recovered = undefined
      }
      if (recovered && publicKey.equals(recovered)) return { r, s: sHex, yParity }
    }
    throw new Error(`the ${signer.backend} signer's signature does not recover to its address ${signer.address}`)
  }
  const toHexSignature = ({ r, s, yParity }: { r: Hex; s: Hex; yParity: number }): Hex =>
    `${r}${s.slice(2)}${(27 + yParity).toString(16)}` as Hex
  const account = toAccount({
    address: signer.address,
    async signMessage({ message }) {
      return toHexSignature(await sign(hashMessage(message)))
    },
    async signTypedData(typedData) {
      return toHexSignature(await sign(hashTypedData(typedData)))
    },
    async signTransaction(transaction, { serializer = serializeTransaction } = {}) {
      const { r, s, yParity } = await sign(keccak256(await serializer(transaction)))
      return await serializer(transaction, { r, s, yParity, v: BigInt(27 + yParity) })
    },
  })
  return { ...account, publicKey: signer.publicKey, backend: signer.backend }
}

/** An ECDSA signature in DER (SEQUENCE of two INTEGERs, as KMS and PKCS#11 wrappers give it) as (r, s). */
export function fromDerSignature(der: Uint8Array): { r: bigint; s: bigint } {
  const fail = () => new Error('not a DER ECDSA signature')
  if (der[0] !== 0x30) throw fail()
  let at = 2
  if (der[1]! & 0x80) at = 2 + (der[1]! & 0x7f)
  const integer = () => {
    if (der[at] !== 0x02) throw fail()
    const length = der[at + 1]!
    const value = der.subarray(at + 2, at + 2 + length)
    at += 2 + length
    return BigInt(bytesToHex(value))
  }
  return { r: integer(), s: integer() }
}

/** The uncompressed secp256k1 public key (0x04 + X + Y) inside a DER SubjectPublicKeyInfo. */
export function fromSpkiPublicKey(spki: Uint8Array): Hex {
  // The key is the BIT STRING at the end: 0x00 unused bits, then 65 bytes starting 0x04.
  const key = spki.subarray(spki.length - 65)
  if (spki.length < 88 || key[0] !== 0x04 || spki[spki.length - 66] !== 0x00)
    throw new Error('not an uncompressed secp256k1 public key (SubjectPublicKeyInfo)')
  return bytesToHex(key)
}
