// Where relayer keys live besides the environment: EVM relayer keys held in AWS KMS (each an
// ECC_SECG_P256K1 key) or in a PKCS#11 token (an HSM), joined to the relayer pool with the local
// keys; the Solana and the Sui relayer key (Ed25519) in the same token or in KMS. Reads its own
// variables and reports its own problems, for loadConfig to compose. The PIN is never echoed.

/** Where a Solana or Sui relayer key (Ed25519) lives outside the process. */
export type Ed25519KeySource = (
  | { backend: 'pkcs11'; modulePath: string; tokenLabel: string; pin: string; keyLabel: string }
  | { backend: 'kms'; keyId: string; region: string; endpoint: string | undefined }
) & {
  /** The setting that named the key, for start-up problems. */
  setting: string
}

/** The runtimes whose relayer is one Ed25519 key, and the prefix of their settings. */
const ed25519Runtimes = { solana: 'SOLANA', sui: 'SUI' } as const

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
  /**
   * The Solana and Sui relayer keys held outside the process (SOLANA_RELAYER_PKCS11_KEY_LABEL,
   * SUI_RELAYER_PKCS11_KEY_LABEL in the RELAYER_PKCS11_* token; SOLANA_RELAYER_KMS_KEY_ID,
   * SUI_RELAYER_KMS_KEY_ID in KMS); absent: from the environment, or none.
   */
  ed25519?: { solana?: Ed25519KeySource | undefined; sui?: Ed25519KeySource | undefined } | undefined
}

export type SignersConfigResult = { value: SignersConfig; problems: string[] }

export function signersConfig(env: Record<string, string | undefined>): SignersConfigResult {
  const problems: string[] = []
  const keyIds = (env.RELAYER_KMS_KEY_IDS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
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
  const pkcs11Labels = (env.RELAYER_PKCS11_KEY_LABELS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
  const modulePath = env.RELAYER_PKCS11_MODULE?.trim()
  const tokenLabel = env.RELAYER_PKCS11_TOKEN?.trim()
  const pin = env.RELAYER_PKCS11_PIN
  // The Ed25519 relayers: at most one source each (a key in the environment, in the token, in KMS).
  const ed25519: NonNullable<SignersConfig['ed25519']> = {}
  const edLabels: string[] = []
  for (const [runtime, prefix] of Object.entries(ed25519Runtimes) as [keyof typeof ed25519Runtimes, string][]) {
    const labelSetting = `${prefix}_RELAYER_PKCS11_KEY_LABEL`
    const kmsSetting = `${prefix}_RELAYER_KMS_KEY_ID`
    const keyLabel = env[labelSetting]?.trim()
    const keyId = env[kmsSetting]?.trim()
    const given = [env[`${prefix}_RELAYER_PRIVATE_KEY`]?.trim() ? `${prefix}_RELAYER_PRIVATE_KEY` : undefined, keyLabel ? labelSetting : undefined, keyId ? kmsSetting : undefined].filter(Boolean)
    if (given.length > 1) {
      problems.push(`${given[1]}: the ${runtime === 'solana' ? 'Solana' : 'Sui'} relayer is one key: set only one of ${given.join(', ')}`)
      continue
    }
    if (keyLabel) {
      edLabels.push(labelSetting)
      if (modulePath && tokenLabel && pin) ed25519[runtime] = { backend: 'pkcs11', modulePath, tokenLabel, pin, keyLabel, setting: labelSetting }
    }
    if (keyId) {
      if (!/^[\w:/+=.@-]{1,2048}$/.test(keyId)) problems.push(`${kmsSetting}: not a KMS key id, alias or ARN`)
      else if (!region) problems.push(`KMS_REGION: required with ${kmsSetting} (or set AWS_REGION)`)
      else ed25519[runtime] = { backend: 'kms', keyId, region, endpoint, setting: kmsSetting }
    }
  }
  let pkcs11: SignersConfig['pkcs11']
  const labelSettings = [...(pkcs11Labels.length > 0 ? ['RELAYER_PKCS11_KEY_LABELS'] : []), ...edLabels]
  if (labelSettings.length > 0 || modulePath || tokenLabel) {
    const withLabels = labelSettings.join(' or ') || 'RELAYER_PKCS11_KEY_LABELS'
    if (labelSettings.length === 0)
      problems.push('RELAYER_PKCS11_KEY_LABELS: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token (or SOLANA_RELAYER_PKCS11_KEY_LABEL, SUI_RELAYER_PKCS11_KEY_LABEL)')
    if (!modulePath) problems.push(`RELAYER_PKCS11_MODULE: required with ${withLabels}: the path of the token's PKCS#11 library`)
    if (!tokenLabel) problems.push(`RELAYER_PKCS11_TOKEN: required with ${withLabels}: the token's label`)
    if (!pin) problems.push(`RELAYER_PKCS11_PIN: required with ${withLabels}: the token's user PIN`)
    if (pkcs11Labels.length > 0 && modulePath && tokenLabel && pin) pkcs11 = { modulePath, tokenLabel, keyLabels: pkcs11Labels, pin }
  }
  return { value: { kms: { keyIds, region, endpoint }, pkcs11, ed25519 }, problems }
}
