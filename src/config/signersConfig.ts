// Where keys are held outside the process: each runtime's relayer keys, named by settings after the
// prefix its module declares (RuntimeModule.heldKeys: a pool joined to the keys in the environment,
// or one key), and the x402 facilitator's keys (one per payment family, as each declares it), in any of the signer backends
// the composition root hands in (signers/keyBackends.ts: a PKCS#11 token, KMS). Each backend reads
// its own settings and reports its own problems (KeyBackendSettings); the rules that are no one
// backend's are written here once, over the list: a key named in one place only, a facilitator key
// that is not a relayer's, a pool's keys opened together listed first. Nothing here names a backend.
import type { ChainType } from '../ports/chainId.ts'
import type { KeySource } from '../ports/keySource.ts'

type Env = Record<string, string | undefined>

/**
 * The in-process x402 facilitator's keys held outside the process, by each payment family's role
 * (`evm`, `solana`: FacilitatorKeyRole.role); absent: from the environment, or none.
 */
export type FacilitatorKeySources = Partial<Record<string, KeySource>>

/**
 * One of the facilitator's keys as a payment family declares it (its `facilitatorKey`, handed in
 * through src/runtimes.ts): its role, how messages name it, its settings' prefix
 * (`<prefix>_PRIVATE_KEY` in the process, and the setting each backend names one key by), and the
 * runtime whose relayer keys it must not be.
 */
export type FacilitatorKeyRole = { role: string; name: string; prefix: string; relayerChainType: ChainType }

/**
 * Where a runtime's relayer keys may be named besides its own settings (RuntimeModule.heldKeys):
 * the prefix of its settings and whether it holds a pool of keys. A pool (`many`) is named by one
 * list per backend (`<prefix>_KMS_KEY_IDS`, `<prefix>_PKCS11_KEY_LABELS`) and joins the keys in the
 * environment; one key by one setting (`<prefix>_KMS_KEY_ID`, `<prefix>_PKCS11_KEY_LABEL`), and
 * never also by `<prefix>_PRIVATE_KEY`.
 */
export type HeldKeys = { prefix: string; many: boolean }

/** A runtime as signersConfig reads its keys: its chain type, its name in messages, where its keys may be held. */
export type KeyHolder = { chainType: ChainType; name: string; heldKeys: HeldKeys }

/**
 * A signer backend as the configuration reads it. Each backend's file (src/signers/) gives its own
 * with its openers (signers/keyBackend.ts' KeyBackend); the composition root hands the list in, so
 * config/ names none. Reading its settings loads nothing of its SDK.
 */
export type KeyBackendSettings = {
  /** The `backend` of its KeySources (`local`, `pkcs11`, `kms`). */
  backend: string
  /** Whether several of its keys may be opened at once (KMS, over the network): a pool lists them first. */
  opensTogether: boolean
  /** How a role's settings name its keys there; absent for the process (`local`), whose keys each runtime and payment family reads itself. */
  settings?: HeldKeySettings | undefined
}

export type HeldKeySettings = {
  /** The setting naming a role's keys there, after the role's prefix: a list for a pool (`many`), else one key. */
  setting(prefix: string, many: boolean): string
  /** Reads what every role's keys there share (a token and its PIN, a region), for the names to be judged with. */
  read(env: Env): HeldKeyReading
}

export type HeldKeyReading = {
  /** What is wrong with the names a setting gives (key ids, labels), judged first; each problem names the setting. */
  check(names: readonly string[], at: { setting: string; many: boolean }): string[]
  /**
   * The keys named, or the problem that keeps them (a shared setting the backend requires at once).
   * None and no problem: what is missing is `finish`'s to say.
   */
  keys(names: readonly string[], setting: string): KeySource[] | { problem: string }
  /** The problems of its shared settings once every role is read: `named`, the settings that named a key there; `every`, all that could have. */
  finish(named: readonly string[], every: readonly string[]): string[]
}

export type SignersConfig = {
  /** The x402 facilitator's keys held in a backend (loadConfig hands them to paymentsConfig). */
  facilitator?: FacilitatorKeySources | undefined
}

export type SignersConfigResult = {
  value: SignersConfig
  /** The relayer keys held in a backend, by chain type (loadConfig joins them to each runtime's own). */
  relayers: Partial<Record<ChainType, KeySource[]>>
  problems: string[]
}

/**
 * `runtimes`: whose relayer keys may be held outside the process (src/runtimes.ts), pools first in
 * their order. `backends`: where they may be held (signers/keyBackends.ts, handed in by
 * src/runtimes.ts), in the order messages list their settings.
 */
export function signersConfig(
  env: Env,
  runtimes: readonly KeyHolder[],
  backends: readonly KeyBackendSettings[],
  facilitatorKeys: readonly FacilitatorKeyRole[],
): SignersConfigResult {
  const problems: string[] = []
  // Each backend that holds keys, with its shared settings read, the settings that named a key
  // there and all that could have (for its closing problems).
  const held = backends.flatMap(({ opensTogether, settings }) =>
    settings
      ? [{ opensTogether, settings, reading: settings.read(env), named: [] as string[], every: [] as string[] }]
      : [],
  )
  type Held = (typeof held)[number]
  // The names each setting gave: a facilitator key is compared with its relayer's.
  const given = new Map<string, string[]>()
  const namesIn = (backend: Held, prefix: string, many: boolean) => {
    const setting = backend.settings.setting(prefix, many)
    backend.every.push(setting)
    const raw = env[setting]?.trim()
    const names = many ? list(raw) : raw ? [raw] : []
    given.set(setting, names)
    return { setting, names }
  }

  const relayers: SignersConfigResult['relayers'] = {}
  const pools = runtimes.filter((r) => r.heldKeys.many)
  const single = runtimes.filter((r) => !r.heldKeys.many)
  // A pool: every name judged at once (a list may hold several problems); the keys opened together
  // first (KMS's, asked at once), then the others (a token's, one after another).
  for (const { chainType, heldKeys } of pools) {
    const together: KeySource[] = []
    const inTurn: KeySource[] = []
    for (const backend of held) {
      const { setting, names } = namesIn(backend, heldKeys.prefix, true)
      if (names.length === 0) continue
      backend.named.push(setting)
      problems.push(...backend.reading.check(names, { setting, many: true }))
      const keys = backend.reading.keys(names, setting)
      if (!Array.isArray(keys)) problems.push(keys.problem)
      else (backend.opensTogether ? together : inTurn).push(...keys)
    }
    if (together.length + inTurn.length > 0) relayers[chainType] = [...together, ...inTurn]
  }

  /**
   * A role whose key is one: named in one place only (its raw key, or one backend); the first thing
   * wrong stops it. `notTheRelayers` is what else may (the facilitator's: a relayer's key).
   */
  const oneKey = (
    role: { prefix: string; rawSetting: string; what: string },
    notTheRelayers?: (backend: Held, setting: string, name: string) => string | undefined,
  ): KeySource | undefined => {
    const named = held.map((backend) => ({ backend, ...namesIn(backend, role.prefix, false) }))
    const settings = [
      ...(env[role.rawSetting]?.trim() ? [role.rawSetting] : []),
      ...named.flatMap(({ setting, names }) => (names.length > 0 ? [setting] : [])),
    ]
    if (settings.length > 1) {
      problems.push(`${settings[1]}: ${role.what} is one key: set only one of ${settings.join(', ')}`)
      return undefined
    }
    const found = named.find(({ names }) => names.length > 0)
    if (!found) return undefined
    const { backend, setting, names } = found
    backend.named.push(setting)
    // The backend judges the name first; only a name it takes is asked whether it may be this role's.
    const wrong = backend.reading.check(names, { setting, many: false })
    const refused = wrong.length === 0 ? notTheRelayers?.(backend, setting, names[0]!) : undefined
    if (wrong.length > 0 || refused) {
      problems.push(...wrong, ...(refused ? [refused] : []))
      return undefined
    }
    const keys = backend.reading.keys(names, setting)
    if (Array.isArray(keys)) return keys[0]
    problems.push(keys.problem)
    return undefined
  }

  // The runtimes whose relayer is one key: at most one source each (a key in the environment, or in one backend).
  for (const { chainType, name, heldKeys } of single) {
    const source = oneKey({
      prefix: heldKeys.prefix,
      rawSetting: `${heldKeys.prefix}_PRIVATE_KEY`,
      what: `the ${name} relayer`,
    })
    if (source) relayers[chainType] = [source]
  }

  // The facilitator's keys: each from one source only, and never a relayer's key by name (the
  // addresses are compared again at start-up, when known). The relayer's transactions belong to
  // the journal: a facilitator sending from the same key would collide with them.
  const facilitator: FacilitatorKeySources = {}
  for (const { role, name, prefix, relayerChainType } of facilitatorKeys) {
    const relayerKeys = runtimes.find((r) => r.chainType === relayerChainType)?.heldKeys
    const source = oneKey(
      { prefix, rawSetting: `${prefix}_PRIVATE_KEY`, what: `the facilitator's ${name} key` },
      (backend, setting, keyName) => {
        if (!relayerKeys) return undefined
        const relayerSetting = backend.settings.setting(relayerKeys.prefix, relayerKeys.many)
        return given.get(relayerSetting)?.includes(keyName)
          ? `${setting}: "${keyName}" is a relayer's key (${relayerSetting}); give the facilitator its own key`
          : undefined
      },
    )
    if (source) facilitator[role] = source
  }

  for (const backend of held) problems.push(...backend.reading.finish(backend.named, backend.every))
  return { value: Object.keys(facilitator).length > 0 ? { facilitator } : {}, relayers, problems }
}

/** A comma-separated list, each entry trimmed, the empty ones left out. */
function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
}

/** The setting each backend names one key of a role by (`<prefix>_PKCS11_KEY_LABEL`, `<prefix>_KMS_KEY_ID`), in the backends' order. */
export function heldKeySettings(backends: readonly KeyBackendSettings[], prefix: string): string[] {
  return backends.flatMap(({ settings }) => (settings ? [settings.setting(prefix, false)] : []))
}
