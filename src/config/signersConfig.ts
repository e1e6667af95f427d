// Where relayer keys live besides the environment: each runtime's relayer keys held in AWS KMS or
// in a PKCS#11 token (an HSM), named by settings after the prefix its module declares
// (RuntimeModule.heldKeys: a pool joined to the keys in the environment, or one key); and the x402
// facilitator's own two keys (EVM, Solana) there too. Reads its own variables and reports its own
// problems, for loadConfig to compose. The PIN is never echoed.
import type { ChainType } from '../ports/chainId.ts'
import type { KeySource } from '../ports/keySource.ts'

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

/**
 * Where a runtime's relayer keys may be named besides its own settings (RuntimeModule.heldKeys):
 * the prefix of its settings and whether it holds a pool of keys. A pool (`many`) is named by
 * `<prefix>_KMS_KEY_IDS` and `<prefix>_PKCS11_KEY_LABELS` and joins the keys in the environment;
 * one key by `<prefix>_KMS_KEY_ID` or `<prefix>_PKCS11_KEY_LABEL`, and never also by `<prefix>_PRIVATE_KEY`.
 */
export type HeldKeys = { prefix: string; many: boolean }

/** A runtime as signersConfig reads its keys: its chain type, its name in messages, where its keys may be held. */
export type KeyHolder = { chainType: ChainType; name: string; heldKeys: HeldKeys }

export type SignersConfig = {
  /** The x402 facilitator's keys in the RELAYER_PKCS11_* token or in KMS (loadConfig hands them to paymentsConfig). */
  facilitator?: FacilitatorKeySources | undefined
}

export type SignersConfigResult = {
  value: SignersConfig
  /** The relayer keys held in the token or in KMS, by chain type (loadConfig joins them to each runtime's own). */
  relayers: Partial<Record<ChainType, KeySource[]>>
  problems: string[]
}

/** `runtimes`: whose relayer keys may be held in the token or KMS (src/runtimes.ts), pools first in their order. */
export function signersConfig(
  env: Record<string, string | undefined>,
  runtimes: readonly KeyHolder[],
): SignersConfigResult {
  const problems: string[] = []
  const region = env.KMS_REGION?.trim() || env.AWS_REGION?.trim() || undefined
  const endpoint = env.KMS_ENDPOINT?.trim() || undefined
  const modulePath = env.RELAYER_PKCS11_MODULE?.trim()
  const tokenLabel = env.RELAYER_PKCS11_TOKEN?.trim()
  const pin = env.RELAYER_PKCS11_PIN
  const relayers: SignersConfigResult['relayers'] = {}
  // The label settings given (the token's settings are required with any), and the pools' labels and key ids.
  const labelSettings: string[] = []
  const poolLabels: string[] = []
  const poolKeyIds: string[] = []
  const pools = runtimes.filter((r) => r.heldKeys.many)
  const single = runtimes.filter((r) => !r.heldKeys.many)
  for (const { chainType, heldKeys } of pools) {
    const kmsSetting = `${heldKeys.prefix}_KMS_KEY_IDS`
    const labelSetting = `${heldKeys.prefix}_PKCS11_KEY_LABELS`
    const keyIds = list(env[kmsSetting])
    keyIds.forEach((id, i) => {
      if (!/^[\w:/+=.@-]{1,2048}$/.test(id)) problems.push(`${kmsSetting}[${i}]: not a KMS key id, alias or ARN`)
    })
    if (new Set(keyIds).size !== keyIds.length) problems.push(`${kmsSetting}: a key is named twice`)
    if (keyIds.length > 0 && !region) problems.push(`KMS_REGION: required with ${kmsSetting} (or set AWS_REGION)`)
    const labels = list(env[labelSetting])
    if (labels.length > 0) labelSettings.push(labelSetting)
    poolLabels.push(...labels)
    poolKeyIds.push(...keyIds)
    // KMS's keys first (opened together), then the token's (one after another).
    const sources: KeySource[] = [
      ...(region
        ? keyIds.map((keyId) => ({ backend: 'kms' as const, keyId, region, endpoint, setting: kmsSetting }))
        : []),
      ...(modulePath && tokenLabel && pin
        ? labels.map((keyLabel) => ({
            backend: 'pkcs11' as const,
            modulePath,
            tokenLabel,
            pin,
            keyLabel,
            setting: labelSetting,
          }))
        : []),
    ]
    if (sources.length > 0) relayers[chainType] = sources
  }
  if (endpoint !== undefined) {
    try {
      const url = new URL(endpoint)
      if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push('KMS_ENDPOINT: must be an http(s) URL')
    } catch {
      problems.push('KMS_ENDPOINT: not a URL')
    }
  }
  // The runtimes whose relayer is one key: at most one source each (a key in the environment, in the token, in KMS).
  for (const { chainType, name, heldKeys } of single) {
    const { prefix } = heldKeys
    const labelSetting = `${prefix}_PKCS11_KEY_LABEL`
    const kmsSetting = `${prefix}_KMS_KEY_ID`
    const keyLabel = env[labelSetting]?.trim()
    const keyId = env[kmsSetting]?.trim()
    const given = [
      env[`${prefix}_PRIVATE_KEY`]?.trim() ? `${prefix}_PRIVATE_KEY` : undefined,
      keyLabel ? labelSetting : undefined,
      keyId ? kmsSetting : undefined,
    ].filter(Boolean)
    if (given.length > 1) {
      problems.push(`${given[1]}: the ${name} relayer is one key: set only one of ${given.join(', ')}`)
      continue
    }
    if (keyLabel) {
      labelSettings.push(labelSetting)
      if (modulePath && tokenLabel && pin)
        relayers[chainType] = [{ backend: 'pkcs11', modulePath, tokenLabel, pin, keyLabel, setting: labelSetting }]
    }
    if (keyId) {
      if (!/^[\w:/+=.@-]{1,2048}$/.test(keyId)) problems.push(`${kmsSetting}: not a KMS key id, alias or ARN`)
      else if (!region) problems.push(`KMS_REGION: required with ${kmsSetting} (or set AWS_REGION)`)
      else relayers[chainType] = [{ backend: 'kms', keyId, region, endpoint, setting: kmsSetting }]
    }
  }
  const facilitator = readFacilitatorKeys(env, {
    modulePath,
    tokenLabel,
    pin,
    region,
    endpoint,
    relayerLabels: poolLabels,
    relayerKeyIds: poolKeyIds,
    labelSettings,
    problems,
  })
  if (labelSettings.length > 0 || modulePath || tokenLabel) {
    // Every label setting there is, for the message when none is given.
    const everyLabel = [
      ...pools.map((r) => `${r.heldKeys.prefix}_PKCS11_KEY_LABELS`),
      ...single.map((r) => `${r.heldKeys.prefix}_PKCS11_KEY_LABEL`),
      ...facilitatorKeys.map(([, prefix]) => `${prefix}_PKCS11_KEY_LABEL`),
    ]
    const withLabels = labelSettings.join(' or ') || everyLabel[0]
    if (labelSettings.length === 0)
      problems.push(
        `${everyLabel[0]}: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token (or ${everyLabel.slice(1).join(', ')})`,
      )
    if (!modulePath)
      problems.push(`RELAYER_PKCS11_MODULE: required with ${withLabels}: the path of the token's PKCS#11 library`)
    if (!tokenLabel) problems.push(`RELAYER_PKCS11_TOKEN: required with ${withLabels}: the token's label`)
    if (!pin) problems.push(`RELAYER_PKCS11_PIN: required with ${withLabels}: the token's user PIN`)
  }
  return { value: facilitator.evm || facilitator.solana ? { facilitator } : {}, relayers, problems }
}

/** A comma-separated list, each entry trimmed, the empty ones left out. */
function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
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
