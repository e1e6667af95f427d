// Where relayer keys live besides the environment: EVM relayer keys held in AWS KMS (each an
// ECC_SECG_P256K1 key) or in a PKCS#11 token (an HSM), joined to the relayer pool with the local
// keys; the Solana and the Sui relayer key (Ed25519) in the same token or in KMS; and the x402
// facilitator's own two keys (EVM, Solana) there too. Reads its own variables and reports its own
// problems, for loadConfig to compose. The PIN is never echoed.
import type { Hex } from 'viem'

/**
 * Where one key lives, for every role (a runtime's relayer, the facilitator of a payment family):
 * in the process (`local`, read from the environment: `Secret` is its form, absent where the role
 * has none), an object in the RELAYER_PKCS11_* token, or a KMS key. Opened by src/signers/
 * (createEvmSigner, createEd25519Signer), and nowhere else.
 */
export type KeySource<Secret = never> = (
  | ([Secret] extends [never] ? never : { backend: 'local'; secret: Secret })
  | { backend: 'pkcs11'; modulePath: string; tokenLabel: string; pin: string; keyLabel: string }
  | { backend: 'kms'; keyId: string; region: string; endpoint: string | undefined }
) & {
  /** The setting that named the key, for start-up problems. */
  setting: string
}

/** Where a secp256k1 key lives: in the process, its private key. */
export type EvmKeySource = KeySource<Hex>

/** Where a Solana or Sui relayer key, or the facilitator's Solana key (Ed25519), lives: in the process, its 32-byte seed. */
export type Ed25519KeySource = KeySource<Uint8Array>

/** The in-process x402 facilitator's keys held outside the process (absent: from the environment, or none). */
export type FacilitatorKeySources = {
  /** FACILITATOR_PKCS11_KEY_LABEL or FACILITATOR_KMS_KEY_ID: a secp256k1 key that settles on EVM networks. */
  evm?: KeySource | undefined
  /** FACILITATOR_SOLANA_PKCS11_KEY_LABEL or FACILITATOR_SOLANA_KMS_KEY_ID: an Ed25519 key that pays Solana settlements' fees. */
  solana?: KeySource | undefined
}

/** The facilitator's keys and their settings: [which key, its settings' prefix, its raw key's setting, the relayer settings it must not repeat]. */
const facilitatorKeys = [
  [
    'evm',
    'FACILITATOR',
    'FACILITATOR_PRIVATE_KEY',
    { pkcs11: 'RELAYER_PKCS11_KEY_LABELS', kms: 'RELAYER_KMS_KEY_IDS' },
  ],
  [
    'solana',
    'FACILITATOR_SOLANA',
    'FACILITATOR_SOLANA_PRIVATE_KEY',
    { pkcs11: 'SOLANA_RELAYER_PKCS11_KEY_LABEL', kms: 'SOLANA_RELAYER_KMS_KEY_ID' },
  ],
] as const

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
  /** The x402 facilitator's keys in the RELAYER_PKCS11_* token or in KMS (loadConfig hands them to paymentsConfig). */
  facilitator?: FacilitatorKeySources | undefined
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
    const given = [
      env[`${prefix}_RELAYER_PRIVATE_KEY`]?.trim() ? `${prefix}_RELAYER_PRIVATE_KEY` : undefined,
      keyLabel ? labelSetting : undefined,
      keyId ? kmsSetting : undefined,
    ].filter(Boolean)
    if (given.length > 1) {
      problems.push(
        `${given[1]}: the ${runtime === 'solana' ? 'Solana' : 'Sui'} relayer is one key: set only one of ${given.join(', ')}`,
      )
      continue
    }
    if (keyLabel) {
      edLabels.push(labelSetting)
      if (modulePath && tokenLabel && pin)
        ed25519[runtime] = { backend: 'pkcs11', modulePath, tokenLabel, pin, keyLabel, setting: labelSetting }
    }
    if (keyId) {
      if (!/^[\w:/+=.@-]{1,2048}$/.test(keyId)) problems.push(`${kmsSetting}: not a KMS key id, alias or ARN`)
      else if (!region) problems.push(`KMS_REGION: required with ${kmsSetting} (or set AWS_REGION)`)
      else ed25519[runtime] = { backend: 'kms', keyId, region, endpoint, setting: kmsSetting }
    }
  }
  const facilitator = readFacilitatorKeys(env, {
    modulePath,
    tokenLabel,
    pin,
    region,
    endpoint,
    relayerLabels: pkcs11Labels,
    relayerKeyIds: keyIds,
    labelSettings: edLabels,
    problems,
  })
  let pkcs11: SignersConfig['pkcs11']
  const labelSettings = [...(pkcs11Labels.length > 0 ? ['RELAYER_PKCS11_KEY_LABELS'] : []), ...edLabels]
  if (labelSettings.length > 0 || modulePath || tokenLabel) {
    const withLabels = labelSettings.join(' or ') || 'RELAYER_PKCS11_KEY_LABELS'
    if (labelSettings.length === 0)
      problems.push(
        'RELAYER_PKCS11_KEY_LABELS: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token (or SOLANA_RELAYER_PKCS11_KEY_LABEL, SUI_RELAYER_PKCS11_KEY_LABEL, FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_PKCS11_KEY_LABEL)',
      )
    if (!modulePath)
      problems.push(`RELAYER_PKCS11_MODULE: required with ${withLabels}: the path of the token's PKCS#11 library`)
    if (!tokenLabel) problems.push(`RELAYER_PKCS11_TOKEN: required with ${withLabels}: the token's label`)
    if (!pin) problems.push(`RELAYER_PKCS11_PIN: required with ${withLabels}: the token's user PIN`)
    if (pkcs11Labels.length > 0 && modulePath && tokenLabel && pin)
      pkcs11 = { modulePath, tokenLabel, keyLabels: pkcs11Labels, pin }
  }
  return {
    value: {
      kms: { keyIds, region, endpoint },
      pkcs11,
      ed25519,
      ...(facilitator.evm || facilitator.solana ? { facilitator } : {}),
    },
    problems,
  }
}

/**
 * The facilitator's keys: each from one source only (its raw key, a token label, a KMS key id),
 * and never a relayer's key by name (the addresses are compared again at start-up, when known).
 * A label pushes its setting onto `labelSettings`, for the token's own settings to be required.
 */
function readFacilitatorKeys(
  env: Record<string, string | undefined>,
  context: {
    modulePath: string | undefined
    tokenLabel: string | undefined
    pin: string | undefined
    region: string | undefined
    endpoint: string | undefined
    relayerLabels: string[]
    relayerKeyIds: string[]
    labelSettings: string[]
    problems: string[]
  },
): FacilitatorKeySources {
  const { modulePath, tokenLabel, pin, region, endpoint, problems } = context
  const sources: FacilitatorKeySources = {}
  for (const [key, prefix, rawSetting, relayerSettings] of facilitatorKeys) {
    const labelSetting = `${prefix}_PKCS11_KEY_LABEL`
    const kmsSetting = `${prefix}_KMS_KEY_ID`
    const keyLabel = env[labelSetting]?.trim()
    const keyId = env[kmsSetting]?.trim()
    const given = [
      env[rawSetting]?.trim() ? rawSetting : undefined,
      keyLabel ? labelSetting : undefined,
      keyId ? kmsSetting : undefined,
    ].filter(Boolean)
    if (given.length > 1) {
      problems.push(
        `${given[1]}: the facilitator's ${key === 'evm' ? 'EVM' : 'Solana'} key is one key: set only one of ${given.join(', ')}`,
      )
      continue
    }
    // The relayer's transactions belong to the journal: a facilitator sending from the same key would collide with them.
    const relayerLabels = key === 'evm' ? context.relayerLabels : [env[relayerSettings.pkcs11]?.trim()].filter(Boolean)
    const relayerKeyIds = key === 'evm' ? context.relayerKeyIds : [env[relayerSettings.kms]?.trim()].filter(Boolean)
    if (keyLabel) {
      context.labelSettings.push(labelSetting)
      if (relayerLabels.includes(keyLabel))
        problems.push(
          `${labelSetting}: "${keyLabel}" is a relayer's key (${relayerSettings.pkcs11}); give the facilitator its own key`,
        )
      else if (modulePath && tokenLabel && pin)
        sources[key] = { backend: 'pkcs11', modulePath, tokenLabel, pin, keyLabel, setting: labelSetting }
    }
    if (keyId) {
      if (!/^[\w:/+=.@-]{1,2048}$/.test(keyId)) problems.push(`${kmsSetting}: not a KMS key id, alias or ARN`)
      else if (relayerKeyIds.includes(keyId))
        problems.push(
          `${kmsSetting}: "${keyId}" is a relayer's key (${relayerSettings.kms}); give the facilitator its own key`,
        )
      else if (!region) problems.push(`KMS_REGION: required with ${kmsSetting} (or set AWS_REGION)`)
      else sources[key] = { backend: 'kms', keyId, region, endpoint, setting: kmsSetting }
    }
  }
  return sources
}
