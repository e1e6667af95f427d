// Where relayer keys live besides the environment: EVM relayer keys held in AWS KMS (each an
// ECC_SECG_P256K1 key) or in a PKCS#11 token (an HSM), joined to the relayer pool with the local keys. Reads its own variables
// and reports its own problems, for loadConfig to compose.

export type SignersConfig = {
  kms: {
    /** RELAYER_KMS_KEY_IDS: key ids, aliases or ARNs of EVM relayer keys in KMS. */
    keyIds: string[]
    /** KMS_REGION, else AWS_REGION. */
    region: string | undefined
    /** KMS_ENDPOINT: another endpoint than AWS's (a VPC endpoint; a local stand-in in tests). */
    endpoint: string | undefined
  }
  /** EVM relayer keys in a PKCS#11 token (an HSM); undefined: none. */
  pkcs11?: { modulePath: string; tokenLabel: string; keyLabels: string[]; pin: string } | undefined
}

export type SignersConfigResult = { value: SignersConfig; problems: string[] }

export function signersConfig(env: Record<string, string | undefined>): SignersConfigResult {
  const problems: string[] = []
  const keyIds = (env.RELAYER_KMS_KEY_IDS ?? '').split(',').map((k) => k.trim()).filter(Boolean)
  keyIds.forEach((id, i) => {
    if (!/^[\w:/+=.@-]{1,2048}$/.test(id)) problems.push(`RELAYER_KMS_KEY_IDS[${i}]: not a KMS key id, alias or ARN`)
  })
  if (new Set(keyIds).size !== keyIds.length) problems.push('RELAYER_KMS_KEY_IDS: a key is named twice')
  const region = env.KMS_REGION?.trim() || env.AWS_REGION?.trim() || undefined
  const endpoint = env.KMS_ENDPOINT?.trim() || undefined
  if (keyIds.length > 0 && !region) problems.push('KMS_REGION: required with RELAYER_KMS_KEY_IDS (or set AWS_REGION)')
  if (endpoint !== undefined) {
    try {
      const url = new URL(endpoint)
      if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push('KMS_ENDPOINT: must be an http(s) URL')
    } catch {
      problems.push('KMS_ENDPOINT: not a URL')
    }
  }
  const pkcs11Labels = (env.RELAYER_PKCS11_KEY_LABELS ?? '').split(',').map((k) => k.trim()).filter(Boolean)
  const modulePath = env.RELAYER_PKCS11_MODULE?.trim()
  const tokenLabel = env.RELAYER_PKCS11_TOKEN?.trim()
  const pin = env.RELAYER_PKCS11_PIN
  let pkcs11: SignersConfig['pkcs11']
  if (pkcs11Labels.length > 0 || modulePath || tokenLabel) {
    if (pkcs11Labels.length === 0) problems.push('RELAYER_PKCS11_KEY_LABELS: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token')
    if (!modulePath) problems.push('RELAYER_PKCS11_MODULE: required with RELAYER_PKCS11_KEY_LABELS: the path of the token\'s PKCS#11 library')
    if (!tokenLabel) problems.push('RELAYER_PKCS11_TOKEN: required with RELAYER_PKCS11_KEY_LABELS: the token\'s label')
    if (!pin) problems.push('RELAYER_PKCS11_PIN: required with RELAYER_PKCS11_KEY_LABELS: the token\'s user PIN')
    if (pkcs11Labels.length > 0 && modulePath && tokenLabel && pin) pkcs11 = { modulePath, tokenLabel, keyLabels: pkcs11Labels, pin }
  }
  return { value: { kms: { keyIds, region, endpoint }, pkcs11 }, problems }
}
