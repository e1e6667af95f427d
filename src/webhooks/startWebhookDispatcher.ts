// Signed webhooks for operators: every execution event (intents/toExecutionEvents.ts) is written to
// the journal's outbox for each configured endpoint, then delivered, signed as the Standard Webhooks
// convention says (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of
// "id.timestamp.body">, by the `standardwebhooks` package), retried with exponential backoff.
// Events come from the journal's records, not from the request that sent the transaction: a crash
// between a change and its event loses nothing (the next scan finds the change), and in a fleet the
// outbox's leases give each delivery to one instance at a time. Delivery is at least once:
// receivers deduplicate by webhook-id. An event goes to the global endpoints and to the endpoints of
// the API key that asked for its execution (the journal keeps the key's id with each attempt), never
// to another key's.
import { Webhook } from 'standardwebhooks'
import { Agent, fetch as undiciFetch } from 'undici'
import type { Logger } from 'pino'
import type { Hex } from 'viem'
import { createPublicOnlyConnector } from '../net/createPublicOnlyConnector.ts'
import { describeEndpoint } from './describeEndpoint.ts'
import { toExecutionEvents } from '../intents/toExecutionEvents.ts'
import type { Journal } from '../ports/journal.ts'
import type { WebhooksConfig } from '../config/webhooksConfig.ts'

export type StartWebhookDispatcherParameters = {
  journal: Journal
  config: WebhooksConfig
  logger: Logger
  /** Production: endpoints must resolve to public addresses on every connection. */
  publicOnly: boolean
  /** How often the journal is scanned and due deliveries sent. Default 500 ms. */
  intervalMs?: number
}

/** How far back a scan looks past its cursor: changes committed out of order by concurrent writers are not missed. */
const overlapMs = 5_000
const scanLimit = 500
const leaseMs = 30_000
const requestTimeoutMs = 10_000

export function startWebhookDispatcher({ journal, config, logger, publicOnly, intervalMs = 500 }: StartWebhookDispatcherParameters): { stop(): Promise<void>; runOnce(): Promise<void> } {
  const log = logger.child({ module: 'webhooks' })
  // Each endpoint signs with its secret (the config refuses one URL with two secrets).
  const signers = new Map<string, Webhook>()
  for (const url of config.urls) signers.set(url, new Webhook(config.secret!))
  for (const k of Object.values(config.byKey ?? {})) for (const url of k.urls) if (!signers.has(url)) signers.set(url, new Webhook((k.secret ?? config.secret)!))
  /** Where an attempt's events go: the global endpoints, and those of the key that asked for it. */
  const keyUrls = new Map(Object.entries(config.byKey ?? {}).map(([id, k]) => [id, k.urls]))
  const endpointsOf = (apiKeyId: string | undefined): string[] => [...new Set([...config.urls, ...((apiKeyId !== undefined && keyUrls.get(apiKeyId)) || [])])]
  const dispatcher = new Agent({ connect: publicOnly ? createPublicOnlyConnector({ timeoutMs: requestTimeoutMs }) : { timeout: requestTimeoutMs } })
  const outbox = journal.webhooks

  async function scan() {
    const from = (await outbox.cursor()) ?? Date.now() - overlapMs
    const changed = await journal.updatedSince(Math.max(0, from - overlapMs), scanLimit)
    if (changed.length === 0) return
    const intents = new Map<string, { chainId: string; intentHash: Hex }>()
    for (const r of changed) intents.set(`${r.chainId} ${r.intentHash}`, { chainId: r.chainId, intentHash: r.intentHash })
    const entries = []
    for (const { chainId, intentHash } of intents.values()) {
      const records = await journal.attempts(chainId, intentHash)
      const keyOf = new Map(records.map((r) => [r.attempt, r.apiKeyId]))
      for (const event of toExecutionEvents(records)) {
        const payload = JSON.stringify(event)
        for (const endpoint of endpointsOf(keyOf.get(event.attempt))) entries.push({ eventId: event.id, endpoint, payload })
      }
    }
    await outbox.enqueue(entries)
    // A full page may leave changes of the same millisecond behind: the overlap reads them again.
    await outbox.advance(changed.at(-1)!.updatedAt.getTime())
  }

  async function deliver() {
    for (const entry of await outbox.lease(20, leaseMs)) {
      const signer = signers.get(entry.endpoint)
      if (!signer) {
        // Taken out of the settings since it was queued: nothing more goes there.
        await outbox.failed(entry, undefined, 'the endpoint is no longer configured')
        log.warn({ eventId: entry.eventId, ...describeEndpoint(entry.endpoint) }, 'webhook given up: its endpoint is no longer configured')
        continue
      }
      const at = new Date()
      const headers = {
        'content-type': 'application/json',
        'webhook-id': entry.eventId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signer.sign(entry.eventId, at, entry.payload),
      }
      let error: string | undefined
      try {
        const res = await undiciFetch(entry.endpoint, { method: 'POST', headers, body: entry.payload, dispatcher, signal: AbortSignal.timeout(requestTimeoutMs), redirect: 'manual' })
        await res.body?.cancel().catch(() => {})
        if (res.status < 200 || res.status >= 300) error = `the endpoint answered ${res.status}`
      } catch (err) {
        error = `the endpoint could not be reached: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`
      }
      if (error === undefined) {
        await outbox.delivered(entry)
        continue
      }
      const attempts = entry.attempts + 1
      const giveUp = attempts >= config.maxAttempts
      const nextAt = giveUp ? undefined : Date.now() + Math.min(config.retryBaseMs * 2 ** (attempts - 1), 3_600_000)
      await outbox.failed(entry, nextAt, error)
      if (giveUp) log.warn({ eventId: entry.eventId, ...describeEndpoint(entry.endpoint), attempts, error }, 'webhook given up after its last attempt')
      else log.info({ eventId: entry.eventId, ...describeEndpoint(entry.endpoint), attempts, error }, 'webhook delivery failed; retried with backoff')
    }
  }

  let pass: Promise<void> | undefined
  let stopped = false
  const runOnce = async () => {
    try {
      await scan()
      await deliver()
    } catch (err) {
      log.warn({ err }, 'webhook pass failed; tried again at the next interval')
    }
  }
  const timer = setInterval(() => {
    if (pass || stopped) return
    pass = runOnce().finally(() => (pass = undefined))
  }, intervalMs)
  timer.unref()
  return {
    runOnce,
    async stop() {
      stopped = true
      clearInterval(timer)
      await pass
      await dispatcher.close()
    },
  }
}
