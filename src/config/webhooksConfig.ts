// The settings of signed webhooks (webhooks/startWebhookDispatcher.ts): where execution events
// go, the secret they are signed with, and how long delivery is retried. Reads its own variables
// and reports its own problems, for loadConfig to compose.
import { readInteger } from './readInteger.ts'

export type WebhooksConfig = {
  /** WEBHOOK_URLS: the endpoints every event is delivered to. */
  urls: string[]
  /** WEBHOOK_SECRET: `whsec_` + base64 of at least 32 random bytes (the Standard Webhooks form). */
  secret: string
  /** WEBHOOK_MAX_ATTEMPTS: attempts before an event is given up for an endpoint (default 12). */
  maxAttempts: number
  /** WEBHOOK_RETRY_BASE_MS: the first retry's delay, doubled each time up to an hour (default 1000). */
  retryBaseMs: number
}

export type WebhooksConfigResult = { value: WebhooksConfig | undefined; problems: string[] }

export function webhooksConfig(env: Record<string, string | undefined>, { production }: { production: boolean }): WebhooksConfigResult {
  const problems: string[] = []
  const urls = (env.WEBHOOK_URLS ?? '').split(',').map((u) => u.trim()).filter(Boolean)
  const secret = env.WEBHOOK_SECRET?.trim()
  if (urls.length === 0) {
    if (secret) problems.push('WEBHOOK_SECRET: is set but WEBHOOK_URLS is not')
    return { value: undefined, problems }
  }
  urls.forEach((raw, i) => {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      problems.push(`WEBHOOK_URLS[${i}]: not a URL`)
      return
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`WEBHOOK_URLS[${i}]: "${url.protocol}" is not https`)
    else if (production && url.protocol !== 'https:') problems.push(`WEBHOOK_URLS[${i}]: must be https in production`)
    if (url.username || url.password) problems.push(`WEBHOOK_URLS[${i}]: must not carry credentials (the payload is signed with WEBHOOK_SECRET)`)
  })
  if (!secret) problems.push('WEBHOOK_SECRET: required with WEBHOOK_URLS: whsec_ followed by the base64 of at least 32 random bytes')
  else {
    const bytes = /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret) ? Buffer.from(secret.slice(6), 'base64') : undefined
    if (!bytes || bytes.length < 32) problems.push('WEBHOOK_SECRET: must be whsec_ followed by the base64 of at least 32 random bytes (its value is not shown)')
  }
  const integer = (name: string, min: number, max: number, fallback: number) => readInteger(env, name, { min, max, fallback }, problems) ?? fallback
  const maxAttempts = integer('WEBHOOK_MAX_ATTEMPTS', 1, 100, 12)
  const retryBaseMs = integer('WEBHOOK_RETRY_BASE_MS', 10, 3_600_000, 1_000)
  return { value: problems.length === 0 ? { urls, secret: secret!, maxAttempts, retryBaseMs } : undefined, problems }
}
