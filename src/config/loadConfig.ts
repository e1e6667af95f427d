// The gateway's configuration: one schema, read once at start-up from an environment-like object.
// Every problem is collected and reported together; nothing else in the code reads process.env.

import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../crypto/hashApiKey.ts'
import { ConfigError } from '../errors/configError.ts'
import type { ChainType } from '../ports/chainId.ts'
import { parseChainId } from '../ports/chainId.ts'
import { checkRpcUrl } from './checkRpcUrl.ts'
import { devnetApiKey } from './devnetApiKey.ts'
import { eventStreamsConfig } from './eventStreamsConfig.ts'
import type { AuthConfig, ChainConfig, Env, GatewayConfig, KeysConfig } from './gatewayConfig.ts'
import { idempotencyConfig } from './idempotencyConfig.ts'
import { interfacesConfig } from './interfacesConfig.ts'
import { limitsConfig } from './limitsConfig.ts'
import { readOAuthConfig } from './oauthConfig.ts'
import { opsConfig } from './opsConfig.ts'
import { type PaymentFamilySettings, parsePaymentsConfig } from './paymentsConfig.ts'
import { publicUrlConfig } from './publicUrlConfig.ts'
import { readBoolean } from './readBoolean.ts'
import { readInteger } from './readInteger.ts'
import { readTrustedProxies } from './readTrustedProxies.ts'
import type { RuntimeModule } from './runtimeModule.ts'
import { serverDefaults } from './serverDefaults.ts'
import { heldKeySettings, type KeyBackendSettings, signersConfig } from './signersConfig.ts'
import { storageConfig } from './storageConfig.ts'
import type { StorageEngine } from './storageEngine.ts'
import { webhooksConfig } from './webhooksConfig.ts'
import { workersConfig } from './workersConfig.ts'

const chainVariables = ['EXECUTOR_ADDRESSES', 'VALIDATOR_ADDRESSES', 'REGISTRY_ADDRESSES', 'RPC_URLS'] as const
const addressVariables = ['EXECUTOR_ADDRESSES', 'VALIDATOR_ADDRESSES', 'REGISTRY_ADDRESSES'] as const
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/**
 * `runtimes`: the runtime modules (src/runtimes.ts); each reads its own settings and judges its own
 * chain ids and contract addresses. `engines`: the storage engines (src/storageEngines.ts); each
 * reads its own settings. `paymentFamilies`: the payment families' settings (payments/mechanisms/
 * paymentFamilies.ts, handed in by src/runtimes.ts); each reads its own prices and facilitator key.
 * `keyBackends`: the signer backends (signers/keyBackends.ts, handed in by src/runtimes.ts); each
 * reads the settings naming keys held there.
 */
export function loadConfig(
  env: Env,
  runtimes: readonly RuntimeModule[],
  engines: readonly StorageEngine[],
  paymentFamilies: readonly PaymentFamilySettings[],
  keyBackends: readonly KeyBackendSettings[],
): GatewayConfig {
  const problems: string[] = []
  const nodeEnv = env.NODE_ENV?.trim() || 'development'
  const production = nodeEnv === 'production'
  const devnet = !production && chainVariables.every((name) => !env[name]?.trim())

  const port = readInteger(env, 'PORT', { min: 0, max: 65535, fallback: devnet ? 3000 : undefined }, problems)
  const host = env.HOST?.trim() || '0.0.0.0'
  const logLevel = env.LOG_LEVEL?.trim() || 'info'
  if (!logLevels.includes(logLevel)) problems.push(`LOG_LEVEL: "${logLevel}" is not one of ${logLevels.join(', ')}`)

  const chains = devnet ? [] : readChains(env, runtimes, problems)

  let defaultChainId: string | undefined
  if (env.DEFAULT_CHAIN_ID?.trim()) {
    const parsed = parseChainId(env.DEFAULT_CHAIN_ID)
    if (typeof parsed === 'string') problems.push(`DEFAULT_CHAIN_ID: ${parsed}`)
    else if (!devnet && !chains.some((c) => c.chainId === parsed.caip2)) {
      problems.push(
        `DEFAULT_CHAIN_ID: chain ${parsed.caip2} is not configured (configured: ${chains.map((c) => c.chainId).join(', ') || 'none'})`,
      )
    } else defaultChainId = parsed.caip2
  }

  const settingsByRuntime = runtimes.map((r) => [r.chainType, r.readSettings(env, { production, problems })] as const)
  const runtimeOptions = Object.fromEntries(
    settingsByRuntime.flatMap(([chainType, { options }]) => (options === undefined ? [] : [[chainType, options]])),
  )
  const signers = signersConfig(
    env,
    runtimes,
    keyBackends,
    paymentFamilies.map((family) => family.facilitatorKey),
  )
  problems.push(...signers.problems)
  // Each runtime's keys by chain type: its own (in the process), then those held in a backend (a token, KMS).
  const keys: KeysConfig = Object.fromEntries(
    settingsByRuntime.flatMap(([chainType, settings]) => {
      const sources = [...(settings.keys ?? []), ...(signers.relayers[chainType] ?? [])]
      return sources.length > 0 ? [[chainType, sources]] : []
    }),
  )
  // paymentsConfig compares the facilitator's keys in the environment with its families' relayers'.
  const evmSecrets = localSecrets(keys, 'evm') as Hex[]
  const payments = parsePaymentsConfig(env, {
    families: paymentFamilies,
    facilitatorKeys: signers.value.facilitator,
    heldSettingsOf: (prefix) => heldKeySettings(keyBackends, prefix),
    relayerKeyOf: (chainType) => localSecrets(keys, chainType)[0],
    chainIds: devnet ? undefined : chains.map((c) => c.chainId),
    problems,
    production,
  })
  const facilitator = payments?.facilitator
  const facilitatorKey = facilitator?.kind === 'local' ? facilitator.privateKey : undefined
  if (
    facilitatorKey &&
    evmSecrets.slice(1).some((k) => privateKeyToAccount(k).address === privateKeyToAccount(facilitatorKey).address)
  ) {
    problems.push(
      "FACILITATOR_PRIVATE_KEY: must not be one of RELAYER_PRIVATE_KEYS (a relayer's nonces belong to the journal); give the facilitator its own funded account",
    )
  }
  const interfaces = interfacesConfig(env)
  problems.push(...interfaces.problems)
  const publicUrl = publicUrlConfig(env, {
    production,
    mcpEnabled: interfaces.value.mcp.enabled,
    priced: payments !== undefined,
  })
  problems.push(...publicUrl.problems)
  // The audience defaults to PUBLIC_URL as parsed (its origin), not to the raw setting.
  const oauth = readOAuthConfig(env, { production, publicUrl: publicUrl.value })
  problems.push(...oauth.problems)
  const storage = storageConfig(env)
  problems.push(...storage.problems)
  const storageOptions = Object.fromEntries(
    engines.flatMap((e) => {
      const options = e.readSettings(env, { production, devnet, problems })
      return options === undefined ? [] : [[e.name, options]]
    }),
  )
  const limits = limitsConfig(env)
  problems.push(...limits.problems)
  const webhooks = webhooksConfig(env, { production })
  problems.push(...webhooks.problems)

  const bodyLimit = readInteger(env, 'BODY_LIMIT', { min: 1024, max: 16 * 1024 * 1024, fallback: 64 * 1024 }, problems)
  const receiptTimeoutMs = readInteger(env, 'RECEIPT_TIMEOUT_MS', { min: 0, max: 600_000, fallback: 30_000 }, problems)
  const rpcTimeoutMs = readInteger(env, 'RPC_TIMEOUT_MS', { min: 100, max: 120_000, fallback: 10_000 }, problems)
  const receiptPollMs = readInteger(env, 'RECEIPT_POLL_MS', { min: 10, max: 60_000, fallback: 200 }, problems)
  const rateLimitMax = readInteger(env, 'RATE_LIMIT_MAX', { min: 0, max: 10_000_000, fallback: 0 }, problems)
  const rateLimitWindowMs = readInteger(
    env,
    'RATE_LIMIT_WINDOW_MS',
    { min: 100, max: 3_600_000, fallback: 60_000 },
    problems,
  )
  const auth = readAuth(env, {
    production,
    hasRelayer: Object.values(keys).some((sources) => sources.length > 0),
    // OAUTH_ISSUER set (even if its other settings are wrong, reported above): callers are authenticated.
    oauth: Boolean(env.OAUTH_ISSUER?.trim()),
    problems,
  })
  const ops = opsConfig(env, { production, agentKeyHashes: auth.keyHashes })
  problems.push(...ops.problems)

  const reconcileIntervalMs = readInteger(
    env,
    'RECONCILE_INTERVAL_MS',
    { min: 100, max: 3_600_000, fallback: 5_000 },
    problems,
  )
  const corsOrigins = readCorsOrigins(env, problems)
  const requestTimeoutMs = readInteger(
    env,
    'REQUEST_TIMEOUT_MS',
    { min: 100, max: 600_000, fallback: serverDefaults.requestTimeoutMs },
    problems,
  )
  const idleTimeoutMs = readInteger(
    env,
    'IDLE_TIMEOUT_MS',
    { min: 100, max: 600_000, fallback: serverDefaults.idleTimeoutMs },
    problems,
  )
  const maxConnections = readInteger(
    env,
    'MAX_CONNECTIONS',
    { min: 1, max: 1_000_000, fallback: serverDefaults.maxConnections },
    problems,
  )
  const maxConnectionsPerClient = readInteger(
    env,
    'MAX_CONNECTIONS_PER_CLIENT',
    { min: 1, max: 1_000_000, fallback: serverDefaults.maxConnectionsPerClient },
    problems,
  )
  const eventStreams = eventStreamsConfig(env, { maxConnections: maxConnections ?? serverDefaults.maxConnections })
  problems.push(...eventStreams.problems)
  const idempotency = idempotencyConfig(env)
  problems.push(...idempotency.problems)
  const trustedProxies = readTrustedProxies(env, problems)
  const shutdownTimeoutMs = readInteger(
    env,
    'SHUTDOWN_TIMEOUT_MS',
    { min: 0, max: 600_000, fallback: 40_000 },
    problems,
  )
  const allowUnsignedIntents = readBoolean(env, 'ALLOW_UNSIGNED_INTENTS', problems)
  const maxGasPerExecution = readInteger(
    env,
    'MAX_GAS_PER_EXECUTION',
    { min: 21_000, max: 1_000_000_000, fallback: 5_000_000 },
    problems,
  )

  const confirmations = readInteger(env, 'CONFIRMATIONS', { min: 1, max: 1_000, fallback: 1 }, problems)
  const heapGrowingPercent = readInteger(env, 'HEAP_GROWING_PERCENT', { min: 0, max: 1000, fallback: 50 }, problems)
  const nativeHeapTrimMs = readInteger(
    env,
    'NATIVE_HEAP_TRIM_MS',
    { min: 0, max: 86_400_000, fallback: 10_000 },
    problems,
  )
  const workers = workersConfig(env, {
    sharedJournal: engines.find((e) => storageOptions[e.name] !== undefined)?.shared ?? false,
  })
  problems.push(...workers.problems)

  if (problems.length > 0) throw new ConfigError(problems)
  return {
    production,
    process: {
      nodeEnv,
      logLevel,
      devnet,
      heapGrowingPercent: heapGrowingPercent!,
      nativeHeapTrimMs: nativeHeapTrimMs!,
      workers: workers.value,
    },
    server: {
      host,
      port: port!,
      bodyLimit: bodyLimit!,
      requestTimeoutMs: requestTimeoutMs!,
      idleTimeoutMs: idleTimeoutMs!,
      shutdownTimeoutMs: shutdownTimeoutMs!,
      maxConnections: maxConnections!,
      maxConnectionsPerClient: maxConnectionsPerClient!,
      trustedProxies,
      corsOrigins,
      publicUrl: publicUrl.value,
      eventStreams: eventStreams.value,
    },
    chains,
    defaultChainId,
    rpc: {
      timeoutMs: rpcTimeoutMs!,
      pollMs: receiptPollMs!,
    },
    keys,
    signers: signers.value,
    execution: {
      receiptTimeoutMs: receiptTimeoutMs!,
      reconcileIntervalMs: reconcileIntervalMs!,
      confirmations: confirmations!,
      maxGasPerExecution: maxGasPerExecution!,
      requireSignedIntents: production && !allowUnsignedIntents,
      idempotencyKeyTtlMs: idempotency.value.keyTtlMs,
    },
    auth,
    oauth: oauth.value,
    rateLimit: { max: rateLimitMax!, windowMs: rateLimitWindowMs! },
    limits: limits.value,
    storage: storage.value,
    storageOptions,
    payments,
    webhooks: webhooks.value,
    // The console: on with an operator key, or with OAuth (tokens granting ops:read / ops:write).
    ops: ops.value.keyHashes.length > 0 || oauth.value ? ops.value : undefined,
    interfaces: interfaces.value,
    runtimeOptions,
  }
}

function readChains(env: Env, runtimes: readonly RuntimeModule[], problems: string[]): ChainConfig[] {
  const maps = Object.fromEntries(
    addressVariables.map((name) => [name, readChainMap(env, name, runtimes, problems)]),
  ) as Record<(typeof addressVariables)[number], Map<string, string | null> | undefined>
  // Optional: a chain without one serves executor mode only (account mode answers 0x10 there).
  const delegates = env.ACCOUNT_DELEGATE_ADDRESSES?.trim()
    ? readChainMap(env, 'ACCOUNT_DELEGATE_ADDRESSES', runtimes, problems)
    : undefined
  // Optional: an EVM chain with one sends a key's executions in bundles (relayer/sendBundled.ts).
  const bundlers = env.BUNDLER_ADDRESSES?.trim()
    ? readChainMap(env, 'BUNDLER_ADDRESSES', runtimes, problems)
    : undefined
  const rpcUrls = readRpcUrls(env, problems)
  const ids = new Set<string>()
  for (const map of Object.values(maps)) for (const id of map?.keys() ?? []) ids.add(id)
  for (const id of rpcUrls.keys()) {
    if (!ids.has(id))
      problems.push(
        `RPC_URLS: chain ${id} has no contract addresses (set it in EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES and REGISTRY_ADDRESSES, or remove it)`,
      )
  }
  if (ids.size === 0 && Object.values(maps).every(Boolean)) problems.push('EXECUTOR_ADDRESSES: no chain is configured')
  for (const id of delegates?.keys() ?? []) {
    if (!ids.has(id))
      problems.push(
        `ACCOUNT_DELEGATE_ADDRESSES: chain ${id} is not configured (set it in EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES and REGISTRY_ADDRESSES, or remove it)`,
      )
  }
  for (const id of bundlers?.keys() ?? []) {
    if (!ids.has(id))
      problems.push(
        `BUNDLER_ADDRESSES: chain ${id} is not configured (set it in EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES and REGISTRY_ADDRESSES, or remove it)`,
      )
    else if (!runtimes.find((r) => id.startsWith(`${r.namespace}:`))?.sendsBundles)
      problems.push(`BUNDLER_ADDRESSES: chain ${id}: its runtime does not send executions in bundles`)
  }

  const chains: ChainConfig[] = []
  for (const chainId of [...ids].sort()) {
    const parsed = parseChainId(chainId) as Exclude<ReturnType<typeof parseChainId>, string>
    const module = runtimes.find((r) => r.namespace === parsed.namespace)
    if (!module) {
      problems.push(
        `${chainId}: the ${parsed.namespace} namespace is not a runtime this gateway serves (${listed(runtimes.map((r) => r.namespace))})`,
      )
      continue
    }
    const chainType = module.chainType
    const referenceProblem = module.checkReference?.(parsed.reference)
    if (referenceProblem) problems.push(`${chainId}: ${referenceProblem}`)
    if (!module.discoversEndpoints && !rpcUrls.has(chainId)) {
      problems.push(
        `RPC_URLS: chain ${chainId} needs an endpoint (only ${listed(runtimes.filter((r) => r.discoversEndpoints).map((r) => r.name))} chains are discovered)`,
      )
    }
    const get = (name: (typeof addressVariables)[number], what: string) => {
      const map = maps[name]
      const value = map?.get(chainId)
      // null: present but invalid, already reported.
      if (map && value === undefined)
        problems.push(`${name}: chain ${chainId} has no ${what} (every chain needs a validator, executor and registry)`)
      return value ?? undefined
    }
    const executor = get('EXECUTOR_ADDRESSES', 'executor address')
    const validator = get('VALIDATOR_ADDRESSES', 'validator address')
    const registry = get('REGISTRY_ADDRESSES', 'registry address')
    if (executor && validator && registry) {
      chains.push({
        chainId,
        chainType,
        reference: parsed.reference,
        rpcUrls: rpcUrls.get(chainId) ?? [],
        executor,
        validator,
        registry,
        ...(delegates?.get(chainId) ? { accountDelegate: delegates.get(chainId) as string } : {}),
        ...(bundlers?.get(chainId) ? { bundler: bundlers.get(chainId) as string } : {}),
      })
    }
  }
  return chains
}

/** RPC_URLS (optional): chain id -> one URL or a list of URLs, tried in failover. */
function readRpcUrls(env: Env, problems: string[]): Map<string, string[]> {
  const result = new Map<string, string[]>()
  if (!env.RPC_URLS?.trim()) return result
  const raw = readJsonObject(env, 'RPC_URLS', 'URL or list of URLs', problems)
  for (const [key, value] of Object.entries(raw ?? {})) {
    const id = parseChainId(key)
    if (typeof id === 'string') {
      problems.push(`RPC_URLS: ${id}`)
      continue
    }
    if (result.has(id.caip2)) {
      problems.push(`RPC_URLS: chain ${id.caip2} appears twice (as a decimal id and as CAIP-2)`)
      continue
    }
    const list = Array.isArray(value) ? value : [value]
    const urls: string[] = []
    list.forEach((url, i) => {
      const where = Array.isArray(value) ? `chain ${key} [${i}]` : `chain ${key}`
      const problem = typeof url !== 'string' ? 'must be a URL string' : checkRpcUrl(url)
      if (problem) problems.push(`RPC_URLS: ${where}: ${problem}`)
      else urls.push(url as string)
    })
    if (list.length === 0)
      problems.push(`RPC_URLS: chain ${key}: the list is empty (leave the chain out to discover its endpoints)`)
    if (urls.length > 0) result.set(id.caip2, urls)
  }
  return result
}

function readJsonObject(env: Env, name: string, what: string, problems: string[]): Record<string, unknown> | undefined {
  const raw = env[name]?.trim() ?? ''
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    problems.push(
      `${name}: not valid JSON (expected an object such as {"84532": ${name === 'RPC_URLS' ? '"https://..."' : '"0x..."'}})`,
    )
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${name}: must be a JSON object of chain id -> ${what}`)
    return undefined
  }
  return parsed as Record<string, unknown>
}

/**
 * Reads a JSON object of chain id -> value; keys come back in canonical CAIP-2 form, and entries
 * whose value was invalid (and reported) as null.
 */
function readChainMap(
  env: Env,
  name: (typeof addressVariables)[number] | 'ACCOUNT_DELEGATE_ADDRESSES' | 'BUNDLER_ADDRESSES',
  runtimes: readonly RuntimeModule[],
  problems: string[],
): Map<string, string | null> | undefined {
  if (!env[name]?.trim()) {
    problems.push(`${name}: required (a JSON object of chain id -> contract address)`)
    return undefined
  }
  const parsed = readJsonObject(env, name, 'address', problems)
  if (!parsed) return undefined
  const map = new Map<string, string | null>()
  for (const [key, value] of Object.entries(parsed)) {
    const id = parseChainId(key)
    if (typeof id === 'string') {
      problems.push(`${name}: ${id}`)
      continue
    }
    if (map.has(id.caip2)) {
      problems.push(`${name}: chain ${id.caip2} appears twice (as a decimal id and as CAIP-2)`)
      continue
    }
    // A namespace no runtime serves is reported once, by readChains.
    const module = runtimes.find((r) => r.namespace === id.namespace)
    const problem = typeof value !== 'string' ? 'must be a string' : module?.checkContractAddress(value)
    if (problem) problems.push(`${name}: chain ${key}: ${problem}`)
    map.set(id.caip2, problem ? null : (value as string))
  }
  return map
}

/** The secrets of a runtime's keys held in the process, in its own form. */
function localSecrets(keys: KeysConfig, chainType: ChainType): unknown[] {
  return (keys[chainType] ?? []).flatMap((k) => (k.backend === 'local' ? [k.secret] : []))
}

/** `a, b or c`. */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}

/**
 * API_KEYS: comma-separated keys (at least 16 characters each), or their SHA-256 hashes written
 * `sha256:<64 hex>` so that the plain keys need not sit in the environment at all. With OAuth on
 * (`oauth`), callers are authenticated by access tokens too: API keys are no longer required.
 */
function readAuth(
  env: Env,
  {
    production,
    hasRelayer,
    oauth,
    problems,
  }: { production: boolean; hasRelayer: boolean; oauth: boolean; problems: string[] },
): AuthConfig {
  const keyHashes: Buffer[] = []
  const entries = (env.API_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
  entries.forEach((entry, i) => {
    const hashed = /^sha256:([0-9a-fA-F]{64})$/.exec(entry)
    if (hashed) keyHashes.push(Buffer.from(hashed[1]!, 'hex'))
    else if (entry.startsWith('sha256:'))
      problems.push(`API_KEYS: entry ${i + 1} starts with sha256: but is not followed by 64 hex digits`)
    else if (entry.length < 16) problems.push(`API_KEYS: entry ${i + 1} is shorter than 16 characters`)
    else if (production && entry === devnetApiKey)
      problems.push(`API_KEYS: entry ${i + 1} is the devnet's public API key and is refused when NODE_ENV=production`)
    else keyHashes.push(hashApiKey(entry))
  })
  const requireForValidate = readBoolean(env, 'REQUIRE_API_KEY_FOR_VALIDATE', problems)
  const allowOpen = readBoolean(env, 'ALLOW_UNAUTHENTICATED_EXECUTE', problems)
  if (requireForValidate && keyHashes.length === 0 && !oauth)
    problems.push('REQUIRE_API_KEY_FOR_VALIDATE: is set but neither API_KEYS nor OAUTH_ISSUER is')
  if (production && hasRelayer && keyHashes.length === 0 && !oauth && !allowOpen) {
    problems.push(
      "API_KEYS: required in production when RELAYER_PRIVATE_KEY is set, unless OAUTH_ISSUER is (anyone could spend the relayer's funds); set ALLOW_UNAUTHENTICATED_EXECUTE=true to run open on purpose",
    )
  }
  return { keyHashes, requireForValidate }
}

/** CORS_ORIGINS: comma-separated origins (`https://app.example`), or `*`. */
function readCorsOrigins(env: Env, problems: string[]): string[] {
  const list = (env.CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
  if (list.includes('*'))
    return list.length === 1 ? ['*'] : (problems.push('CORS_ORIGINS: "*" cannot be combined with other origins'), [])
  for (const origin of list) {
    let url: URL | undefined
    try {
      url = new URL(origin)
    } catch {}
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin) {
      problems.push(
        `CORS_ORIGINS: "${origin.slice(0, 60)}" is not an origin like https://app.example (scheme, host and port only)`,
      )
    }
  }
  return list
}
