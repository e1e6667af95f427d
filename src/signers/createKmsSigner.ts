// A relayer key held in AWS KMS (an ECC_SECG_P256K1 key with SIGN_VERIFY usage): the address comes
// from GetPublicKey, each transaction's digest is signed by Sign (MessageType DIGEST), and the
// private key never leaves KMS. A call that fails or times out is a 503 (0x40) with Retry-After:
// the relayer signs before the journal records anything, so no record claims an unsigned
// transaction.
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms'
import type { Address, LocalAccount } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import { GatewayError } from '../errors/gatewayError.ts'
import { kmsUnavailable } from './kmsUnavailable.ts'
import { fromDerSignature, fromSpkiPublicKey, toDigestSignerAccount } from './toDigestSignerAccount.ts'

export type KmsSignerParameters = {
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

export async function createKmsSigner({
  keyId,
  region,
  endpoint,
  credentials,
  timeoutMs = 5_000,
}: KmsSignerParameters): Promise<LocalAccount & { backend: string }> {
  const client = new KMSClient({
    region,
    ...(endpoint ? { endpoint } : {}),
    ...(credentials ? { credentials } : {}),
    maxAttempts: 2,
  })
  const unavailable = (call: 'GetPublicKey' | 'Sign', cause: unknown) => kmsUnavailable({ call, keyId, cause })
  let spki: Uint8Array
  try {
    const answer = await client.send(new GetPublicKeyCommand({ KeyId: keyId }), {
      abortSignal: AbortSignal.timeout(timeoutMs),
    })
    if (answer.KeySpec !== undefined && answer.KeySpec !== 'ECC_SECG_P256K1')
      throw new Error(`key spec ${answer.KeySpec} is not ECC_SECG_P256K1`)
    if (!answer.PublicKey) throw new Error('no public key in the answer')
    spki = answer.PublicKey
  } catch (err) {
    if (err instanceof GatewayError) throw err
    throw unavailable('GetPublicKey', err)
  }
  const publicKey = fromSpkiPublicKey(spki)
  const address: Address = publicKeyToAddress(publicKey)
  return toDigestSignerAccount({
    address,
    publicKey,
    backend: 'kms',
    async signDigest(digest) {
      let signature: Uint8Array | undefined
      try {
        signature = (
          await client.send(
            new SignCommand({
              KeyId: keyId,
              Message: digest,
              MessageType: 'DIGEST',
              SigningAlgorithm: 'ECDSA_SHA_256',
            }),
            { abortSignal: AbortSignal.timeout(timeoutMs) },
          )
        ).Signature
      } catch (err) {
        throw unavailable('Sign', err)
      }
      if (!signature) throw unavailable('Sign', new Error('no signature in the answer'))
      return fromDerSignature(signature)
    },
  })
}
