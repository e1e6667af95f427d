// The settings of signed webhooks (webhooks/startWebhookDispatcher.ts): where execution events
// go (global endpoints, and each API key's own), the secrets they are signed with, and how long
// delivery is retried. Reads its own variables and reports its own problems, for loadConfig to
// compose.
import { isIP } from 'node:net'
import { hashApiKey } from '../crypto/hashApiKey.ts'
import { isPublicAddress } from '../net/isPublicAddress.ts'
import { readInteger } from './readInteger.ts'

/** One API key's own endpoints: they get the events of the executions that key asked for, and no other. */
export type KeyWebhooks = {
  /** The endpoints of this key. */
  urls: string[]
  /** Its own signing secret; else WEBHOOK_SECRET. */
  secret?: string | undefined
}

export type WebhooksConfig = {
  /** WEBHOOK_URLS: the endpoints every event is delivered to. */
  urls: string[]
  /**
   * WEBHOOK_SECRET: `whsec_` + base64 of at least 32 random bytes (the Standard Webhooks form).
   * Required with WEBHOOK_URLS, and for every key's endpoints that have no secret of their own.
   */
  secret: string | undefined
  /**
   * WEBHOOK_URLS_BY_KEY: per API key (its short id: the first 8 hex digits of its SHA-256, as the
   * gateway logs it), the endpoints that also get the events of that key's executions.
   */
  byKey?: Record<string, KeyWebhooks> | undefined
  /** WEBHOOK_MAX_ATTEMPTS: attempts before an event is given up for an endpoint (default 12). */
  maxAttempts: number
  /** WEBHOOK_RETRY_BASE_MS: the first retry's delay, doubled each time up to an hour (default 1000). */
  retryBaseMs: number
}

export type WebhooksConfigResult = { value: WebhooksConfig | undefined; problems: string[] }

const secretForm = 'whsec_ followed by the base64 of at least 32 random bytes'

export function webhooksConfig(
  env: Record<string, string | undefined>,
  { production }: { production: boolean },
): WebhooksConfigResult {
  const problems: string[] = []
  const urls = (env.WEBHOOK_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
  const secret = env.WEBHOOK_SECRET?.trim() || undefined
  const byKey = readByKey(env, production, problems)
  if (urls.length === 0 && byKey === undefined) {
    if (secret) problems.push('WEBHOOK_SECRET: is set but WEBHOOK_URLS is not')
    return { value: undefined, problems }
  }
  urls.forEach((raw, i) => checkUrl(raw, `WEBHOOK_URLS[${i}]`, production, problems))
  if (secret !== undefined && !isSecret(secret))
    problems.push(`WEBHOOK_SECRET: must be ${secretForm} (its value is not shown)`)
  if (secret === undefined) {
    if (urls.length > 0) problems.push(`WEBHOOK_SECRET: required with WEBHOOK_URLS: ${secretForm}`)
    const unsigned = Object.entries(byKey ?? {})
      .filter(([, k]) => k.secret === undefined)
      .map(([id]) => id)
    if (unsigned.length > 0)
      problems.push(
        `WEBHOOK_SECRET: required for the endpoints of ${unsigned.map((id) => `WEBHOOK_URLS_BY_KEY["${id}"]`).join(', ')}, which have no secret of their own: ${secretForm}`,
      )
  }
  // An endpoint is signed with one secret: the receiver verifies with one.
  const secretOf = new Map<string, { secret: string | undefined; where: string }>()
  const note = (url: string, s: string | undefined, where: string) => {
    const before = secretOf.get(url)
    if (before && before.secret !== s)
      problems.push(
        `${where}: this URL is also ${before.where} with another secret: one endpoint is signed with one secret`,
      )
    else if (!before) secretOf.set(url, { secret: s, where })
  }
  urls.forEach((url, i) => note(url, secret, `WEBHOOK_URLS[${i}]`))
  for (const [id, k] of Object.entries(byKey ?? {}))
    k.urls.forEach((url, i) => note(url, k.secret ?? secret, `WEBHOOK_URLS_BY_KEY["${id}"].urls[${i}]`))
  const integer = (name: string, min: number, max: number, fallback: number) =>
    readInteger(env, name, { min, max, fallback }, problems) ?? fallback
  const maxAttempts = integer('WEBHOOK_MAX_ATTEMPTS', 1, 100, 12)
  const retryBaseMs = integer('WEBHOOK_RETRY_BASE_MS', 10, 3_600_000, 1_000)
  return {
    value: problems.length === 0 ? { urls, secret, ...(byKey ? { byKey } : {}), maxAttempts, retryBaseMs } : undefined,
    problems,
  }
}

/**
 * WEBHOOK_URLS_BY_KEY: a JSON object from an API key (its short id, 8 hex digits as the gateway
 * logs it, or `sha256:<64 hex>` as API_KEYS accepts it) to its endpoints: a list of URLs, or
 * `{ "urls": [...], "secret": "whsec_..." }`. Each key must be one of API_KEYS, and its short id
 * that key's alone (executions remember the short id).
 */
function readByKey(
  env: Record<string, string | undefined>,
  production: boolean,
  problems: string[],
): Record<string, KeyWebhooks> | undefined {
  const raw = env.WEBHOOK_URLS_BY_KEY?.trim()
  if (!raw) return undefined
  const name = 'WEBHOOK_URLS_BY_KEY'
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    problems.push(`${name}: not JSON (a JSON object from an API key id to its endpoint URLs)`)
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(
      `${name}: must be a JSON object from an API key id to its endpoint URLs, e.g. {"1a2b3c4d": ["https://hooks.example/a"]}`,
    )
    return undefined
  }
  const known = apiKeyIds(env)
  const byKey: Record<string, KeyWebhooks> = {}
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const at = `${name}["${key}"]`
    const hashed = /^sha256:([0-9a-fA-F]{64})$/.exec(key)
    const id = hashed
      ? hashed[1]!.slice(0, 8).toLowerCase()
      : /^[0-9a-fA-F]{8}$/.test(key)
        ? key.toLowerCase()
        : undefined
    if (id === undefined) {
      problems.push(
        `${at}: not an API key id: 8 hex digits (the key's id as the gateway logs it) or sha256:<64 hex digits> (as API_KEYS accepts it); never the key itself`,
      )
      continue
    }
    const holders = known.get(id) ?? []
    if (holders.length === 0) problems.push(`${at}: no key of API_KEYS has this id`)
    else if (hashed && !holders.some((h) => h.hash === hashed[1]!.toLowerCase()))
      problems.push(`${at}: no key of API_KEYS has this SHA-256`)
    else if (holders.length > 1)
      problems.push(
        `${at}: API_KEYS entries ${holders.map((h) => h.entry).join(' and ')} share this id, so their executions cannot be told apart: replace one of those keys`,
      )
    if (byKey[id]) {
      problems.push(`${at}: names the same API key as another entry`)
      continue
    }
    const entry = Array.isArray(value) || typeof value === 'string' ? { urls: value } : value
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at}: must be a list of URLs or {"urls": [...], "secret": "whsec_..."}`)
      continue
    }
    const { urls: list, secret, ...rest } = entry as Record<string, unknown>
    for (const field of Object.keys(rest)) problems.push(`${at}.${field}: unknown field (urls and secret are read)`)
    const urls =
      typeof list === 'string'
        ? [list]
        : Array.isArray(list) && list.every((u) => typeof u === 'string')
          ? list.map((u: string) => u.trim())
          : undefined
    if (!urls || urls.length === 0) {
      problems.push(`${at}.urls: must be a non-empty list of URLs`)
      continue
    }
    urls.forEach((u, i) =>
      checkUrl(
        u,
        `${at}.urls[${i}]`,
        production,
        problems,
        typeof secret === 'string' ? 'its secret' : 'WEBHOOK_SECRET',
      ),
    )
    if (secret !== undefined && (typeof secret !== 'string' || !isSecret(secret.trim())))
      problems.push(`${at}.secret: must be ${secretForm} (its value is not shown)`)
    byKey[id] = { urls, ...(typeof secret === 'string' ? { secret: secret.trim() } : {}) }
  }
  if (known.size === 0) problems.push(`${name}: is set but API_KEYS is empty: no execution is asked for with a key`)
  return byKey
}

/** API_KEYS as the gateway identifies them: short id → the entries (1-based) with that id, and their SHA-256. */
function apiKeyIds(env: Record<string, string | undefined>): Map<string, { entry: number; hash: string }[]> {
  const ids = new Map<string, { entry: number; hash: string }[]>()
  ;(env.API_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .forEach((entry, i) => {
      const hashed = /^sha256:([0-9a-fA-F]{64})$/.exec(entry)
      // Entries API_KEYS refuses are reported there.
      if (!hashed && (entry.startsWith('sha256:') || entry.length < 16)) return
      const hash = hashed ? hashed[1]!.toLowerCase() : hashApiKey(entry).toString('hex')
      const id = hash.slice(0, 8)
      ids.set(id, [...(ids.get(id) ?? []), { entry: i + 1, hash }])
    })
  return ids
}

/**
 * The rules of every endpoint, global or a key's: http(s) (https in production), no credentials in
 * the URL, and in production no host that is an internal IP literal (a literal is never looked up,
 * so the DNS check of publicOnlyLookup would not see it; the dispatcher checks the address it
 * connects to as well).
 */
function checkUrl(
  raw: string,
  where: string,
  production: boolean,
  problems: string[],
  signedWith = 'WEBHOOK_SECRET',
): void {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    problems.push(`${where}: not a URL`)
    return
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`${where}: "${url.protocol}" is not https`)
  else if (production && url.protocol !== 'https:') problems.push(`${where}: must be https in production`)
  if (url.username || url.password)
    problems.push(`${where}: must not carry credentials (the payload is signed with ${signedWith})`)
  // The URL parser has already turned 0x7f.1, 2130706433 and the like into dotted IPv4.
  const literal = url.hostname.replace(/^\[|\]$/g, '')
  if (production && isIP(literal) !== 0 && !isPublicAddress(literal))
    problems.push(
      `${where}: its host ${url.hostname} is a loopback, private, link-local or reserved address: refused in production (name the endpoint by a public address or a DNS name)`,
    )
}

function isSecret(secret: string): boolean {
  const bytes = /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret) ? Buffer.from(secret.slice(6), 'base64') : undefined
  return bytes !== undefined && bytes.length >= 32
}
