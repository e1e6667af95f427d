// Keys in AWS KMS (a secp256k1 ECC_SECG_P256K1 key, an Ed25519 ECC_NIST_EDWARDS25519 key), asked
// to sign over the network. KMS's SDK is loaded only when a key lives there.
import type { KeyBackend } from './keyBackend.ts'

declare module '../ports/keySource.ts' {
  interface HeldKeyFields {
    /** A KMS key by its id, alias or ARN; `endpoint` a VPC endpoint or a stand-in, else KMS's own. */
    kms: { keyId: string; region: string; endpoint: string | undefined }
  }
}

export const kmsKeyBackend: KeyBackend = {
  backend: 'kms',
  opensTogether: true,
  async openEvm(source, { timeoutMs }) {
    if (source.backend !== 'kms') throw new Error(`not a KMS key: ${source.backend}`)
    const { createKmsSigner } = await import('./createKmsSigner.ts')
    return createKmsSigner({
      keyId: source.keyId,
      region: source.region,
      endpoint: source.endpoint,
      ...(timeoutMs ? { timeoutMs } : {}),
    })
  },
  async openEd25519(source) {
    if (source.backend !== 'kms') throw new Error(`not a KMS key: ${source.backend}`)
    const { createKmsEd25519Signer } = await import('./createKmsEd25519Signer.ts')
    return createKmsEd25519Signer(source)
  },
}
