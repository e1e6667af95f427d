// A Solana or Sui relayer key held in AWS KMS: an ECC_NIST_EDWARDS25519 key with SIGN_VERIFY usage.
// Its public key comes from GetPublicKey (a DER SubjectPublicKeyInfo); each message is signed
// whole by Sign with ED25519_SHA_512 and MessageType RAW (pure Ed25519, what Solana and Sui verify;
// KMS takes up to 4096 bytes, and a Solana transaction message is at most 1232, a Sui one is a
// 32-byte digest). A call that fails or times out is a 503 (0x40) with Retry-After.

import { createPublicKey, verify } from 'node:crypto'
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms'
import type { Ed25519Signer } from './ed25519Signer.ts'
import { kmsUnavailable } from './kmsUnavailable.ts'

export type KmsEd25519SignerParameters = {
  /** The key id, alias or ARN. */
  keyId: string
  region: string
  /** Another endpoint than AWS's (a VPC endpoint, or a local stand-in in tests). */
  endpoint?: string | undefined
  /** Default: the SDK's own chain (environment, shared files, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined
  /** How long one KMS call may take. Default 5 s. */
  timeoutMs?: number
}

/** DER SubjectPublicKeyInfo of an Ed25519 key, up to the 32 key bytes. */
const spkiPrefix = Buffer.from('302a300506032b6570032100', 'hex')

export async function createKmsEd25519Signer({
  keyId,
  region,
  endpoint,
  credentials,
  timeoutMs = 5_000,
}: KmsEd25519SignerParameters): Promise<Ed25519Signer> {
  const client = new KMSClient({
    region,
    ...(endpoint ? { endpoint } : {}),
    ...(credentials ? { credentials } : {}),
    maxAttempts: 2,
  })
  const unavailable = (call: 'GetPublicKey' | 'Sign', cause: unknown) => kmsUnavailable({ call, keyId, cause })
  let spki: Buffer
  try {
    const answer = await client.send(new GetPublicKeyCommand({ KeyId: keyId }), {
      abortSignal: AbortSignal.timeout(timeoutMs),
    })
    if (answer.KeySpec !== undefined && answer.KeySpec !== 'ECC_NIST_EDWARDS25519')
      throw new Error(`key spec ${answer.KeySpec} is not ECC_NIST_EDWARDS25519`)
    if (!answer.PublicKey) throw new Error('no public key in the answer')
    spki = Buffer.from(answer.PublicKey)
  } catch (err) {
    if (err instanceof Error && /^(key spec|no public key)/.test(err.message)) throw err
    throw unavailable('GetPublicKey', err)
  }
  if (spki.length !== 44 || !spki.subarray(0, 12).equals(spkiPrefix))
    throw new Error(`the key ${keyId} is not an Ed25519 key (its public key is not an Ed25519 SubjectPublicKeyInfo)`)
  const verifier = createPublicKey({ key: spki, format: 'der', type: 'spki' })
  return {
    publicKey: Uint8Array.from(spki.subarray(12)),
    backend: 'kms',
    async sign(message) {
      let signature: Uint8Array | undefined
      try {
        signature = (
          await client.send(
            new SignCommand({
              KeyId: keyId,
              Message: message,
              MessageType: 'RAW',
              SigningAlgorithm: 'ED25519_SHA_512',
            }),
            { abortSignal: AbortSignal.timeout(timeoutMs) },
          )
        ).Signature
      } catch (err) {
        throw unavailable('Sign', err)
      }
      if (!signature) throw unavailable('Sign', new Error('no signature in the answer'))
      if (signature.length !== 64 || !verify(null, message, verifier, signature))
        throw new Error(`KMS key ${keyId} gave a signature that does not verify for its public key`)
      return Uint8Array.from(signature)
    },
  }
}
