// Keys in AWS KMS (a secp256k1 ECC_SECG_P256K1 key, an Ed25519 ECC_NIST_EDWARDS25519 key), asked
// to sign over the network. One region and endpoint for every role (KMS_REGION or AWS_REGION,
// KMS_ENDPOINT), each key named by its id, alias or ARN: `<prefix>_KMS_KEY_IDS` for a pool,
// `<prefix>_KMS_KEY_ID` for one key. KMS's SDK is loaded only when a key is opened.
import type { KeyBackend } from './keyBackend.ts'

declare module '../ports/keySource.ts' {
  interface HeldKeyFields {
    /** A KMS key by its id, alias or ARN; `endpoint` a VPC endpoint or a stand-in, else KMS's own. */
    kms: { keyId: string; region: string; endpoint: string | undefined }
  }
}

/** A KMS key id, alias or ARN. */
const keyIdForm = /^[\w:/+=.@-]{1,2048}$/

export const kmsKeyBackend: KeyBackend = {
  backend: 'kms',
  opensTogether: true,
  settings: {
    setting: (prefix, many) => `${prefix}_KMS_KEY_ID${many ? 'S' : ''}`,
    read(env) {
      const region = env.KMS_REGION?.trim() || env.AWS_REGION?.trim() || undefined
      const endpoint = env.KMS_ENDPOINT?.trim() || undefined
      return {
        check(keyIds, { setting, many }) {
          const problems = keyIds.flatMap((id, i) =>
            keyIdForm.test(id) ? [] : [`${many ? `${setting}[${i}]` : setting}: not a KMS key id, alias or ARN`],
          )
          if (new Set(keyIds).size !== keyIds.length) problems.push(`${setting}: a key is named twice`)
          return problems
        },
        keys: (keyIds, setting) =>
          region
            ? keyIds.map((keyId) => ({ backend: 'kms', keyId, region, endpoint, setting }))
            : { problem: `KMS_REGION: required with ${setting} (or set AWS_REGION)` },
        finish() {
          if (endpoint === undefined) return []
          try {
            const url = new URL(endpoint)
            return url.protocol === 'https:' || url.protocol === 'http:' ? [] : ['KMS_ENDPOINT: must be an http(s) URL']
          } catch {
            return ['KMS_ENDPOINT: not a URL']
          }
        },
      }
    },
  },
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
