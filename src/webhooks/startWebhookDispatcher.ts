// Signed webhooks for operators: every execution event (intents/toExecutionEvents.ts) is written to
// the journal's outbox for each configured endpoint, then delivered, signed as the Standard Webhooks
// convention says (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of
// "id.timestamp.body">, by the `standardwebhooks` package), retried with exponential backoff.
// Events come from the journal's change feed, not from the request that sent the transaction: a
// crash between a change and its event loses nothing (the feed's position is moved only once the
// events are in the outbox), and in a fleet the outbox's leases give each delivery to one instance
// at a time. Delivery is at least once: receivers deduplicate by webhook-id. An event goes to the
// global endpoints and to the endpoints of the API key that asked for its execution (the journal
// keeps the key's id with each attempt), never to another key's.
//
// Each endpoint is served apart: at most `concurrency` deliveries in flight to it, leased from its
// own due entries, so an endpoint that never answers (or has a backlog of retries) holds its own
// slots and no one else's. One that keeps not answering has its circuit opened: nothing is sent to
// it for a while (its events wait in the outbox, no attempt counted), then one delivery tries it
// (half-open); an answer closes the circuit, silence opens it again for twice as long.

import type { Logger } from 'pino'
import { Webhook } from 'standardwebhooks'
import { Agent, fetch as undiciFetch } from 'undici'
import type { Hex } from 'viem'
import type { WebhooksConfig } from '../config/webhooksConfig.ts'
import { toExecutionEvents } from '../intents/toExecutionEvents.ts'
import { createPublicOnlyConnector } from '../net/createPublicOnlyConnector.ts'
import type { ChangePosition, Journal } from '../ports/journal.ts'
import type { LeasedEntry, OutboxEntry } from '../ports/webhookOutbox.ts'
import { describeEndpoint } from './describeEndpoint.ts'

export type WebhookBreakerSettings = {
  /** Deliveries in a row that got no answer (timed out, or no connection) before the circuit opens. Default 5. */
  failures: number
  /** How long it first stays open (ms), doubled at each failed trial up to `maxOpenMs`. Default 30 s. */
  openMs: number
  /** Default 10 minutes. */
  maxOpenMs: number
}

export type StartWebhookDispatcherParameters = {
  journal: Journal
  config: WebhooksConfig
  logger: Logger
  /** Production: endpoints must be at public addresses, checked on every connection. */
  publicOnly: boolean
  /** How often the journal's change feed is read and due deliveries started. Default 500 ms. */
  intervalMs?: number
  /** Deliveries in flight to one endpoint at most. Default 4. */
  concurrency?: number
  /** How long one delivery may take, connection included (ms). Default 10 s. */
  timeoutMs?: number
  breaker?: Partial<WebhookBreakerSettings>
}

export type WebhookDispatcher = {
  /** Reads the change feed, starts what is due, and waits for every delivery in flight (tests, and the first pass). */
  runOnce(): Promise<void>
  /** Endpoints whose circuit is open now (the gateway_webhook_endpoints_open gauge). */
  openCircuits(): number
  /** Stops: deliveries in flight are abandoned and their entries given back untried. */
  stop(): Promise<void>
}

/** Rows of the change feed read at once, and pages per pass (a burst is read over a few passes). */
const scanLimit = 500
const pagesPerPass = 20
/** Entries of endpoints taken out of the settings are looked for every this many passes (the query reads every due entry). */
const othersEvery = 20

type Circuit = {
  inFlight: number
  failures: number
  openUntil: number
  openMs: number
  open: boolean
  filling?: Promise<void> | undefined
  again?: boolean
}

export function startWebhookDispatcher({
  journal,
  config,
  logger,
  publicOnly,
  intervalMs = 500,
  concurrency = 4,
  timeoutMs = 10_000,
  breaker = {},
}: StartWebhookDispatcherParameters): WebhookDispatcher {
  const log = logger.child({ module: 'webhooks' })
  const settings: WebhookBreakerSettings = { failures: 5, openMs: 30_000, maxOpenMs: 600_000, ...breaker }
  // A lease outlives the longest delivery (it is cut at timeoutMs) by far: another instance of a fleet never takes an entry still being sent.
  const leaseMs = Math.max(60_000, 6 * timeoutMs)
  // Each endpoint signs with its secret (the config refuses one URL with two secrets).
  const signers = new Map<string, Webhook>()
  for (const url of config.urls) signers.set(url, new Webhook(config.secret!))
  for (const k of Object.values(config.byKey ?? {}))
    for (const url of k.urls) if (!signers.has(url)) signers.set(url, new Webhook((k.secret ?? config.secret)!))
  const endpoints = [...signers.keys()]
  /** Where an attempt's events go: the global endpoints, and those of the key that asked for it. */
  const keyUrls = new Map(Object.entries(config.byKey ?? {}).map(([id, k]) => [id, k.urls]))
  const endpointsOf = (apiKeyId: string | undefined): string[] => [
    ...new Set([...config.urls, ...((apiKeyId !== undefined && keyUrls.get(apiKeyId)) || [])]),
  ]
  const dispatcher = new Agent({
    connect: publicOnly ? createPublicOnlyConnector({ timeoutMs }) : { timeout: timeoutMs },
  })
  const outbox = journal.webhooks
  const circuits = new Map<string, Circuit>(
    endpoints.map((e) => [e, { inFlight: 0, failures: 0, openUntil: 0, openMs: settings.openMs, open: false }]),
  )
  const inFlight = new Set<Promise<void>>()
  const stopping = new AbortController()

  /** Turns the journal's changes since the feed's position into outbox entries, then moves the position past them. */
  async function scan() {
    // Shared by a fleet: each pass starts where any instance got to.
    let position: ChangePosition | undefined = await outbox.position()
    if (position === undefined) {
      // First start, or the first after an upgrade: from the old scan's cursor (its 5 s overlap kept), or from now.
      position = await journal.changePositionAt(((await outbox.cursor()) ?? Date.now()) - 5_000)
      await outbox.advance(position)
    }
    for (let page = 0; page < pagesPerPass && !stopping.signal.aborted; page++) {
      const { records, position: next } = await journal.changesAfter(position, scanLimit)
      if (records.length === 0) return
      const intents = new Map<string, { chainId: string; intentHash: Hex }>()
      for (const r of records)
        intents.set(`${r.chainId} ${r.intentHash}`, { chainId: r.chainId, intentHash: r.intentHash })
      const entries: OutboxEntry[] = []
      for (const { chainId, intentHash } of intents.values()) {
        const attempts = await journal.attempts(chainId, intentHash)
        const keyOf = new Map(attempts.map((r) => [r.attempt, r.apiKeyId]))
        for (const event of toExecutionEvents(attempts)) {
          const payload = JSON.stringify(event)
          for (const endpoint of endpointsOf(keyOf.get(event.attempt)))
            entries.push({ eventId: event.id, endpoint, payload })
        }
      }
      await outbox.enqueue(entries)
      await outbox.advance(next)
      position = next
      if (records.length < scanLimit) return
    }
  }

  /** Leases what each endpoint may take now and starts sending it. */
  async function dispatch() {
    await Promise.all([...circuits].map(([endpoint, circuit]) => fill(endpoint, circuit)))
  }

  /**
   * Fills an endpoint's free slots (one trial when its circuit is half-open), and again as each
   * delivery ends: an endpoint that answers fast is kept busy, one that does not holds its own slots.
   */
  function fill(endpoint: string, circuit: Circuit): Promise<void> {
    if (circuit.filling) {
      circuit.again = true
      return circuit.filling
    }
    circuit.filling = (async () => {
      do {
        circuit.again = false
        if (stopping.signal.aborted) return
        let room = concurrency - circuit.inFlight
        if (circuit.open) room = Date.now() >= circuit.openUntil && circuit.inFlight === 0 ? 1 : 0
        if (room <= 0) return
        const leased = await outbox.lease(endpoint, room, leaseMs)
        // Leased while open: the half-open trial.
        const trial = circuit.open
        for (const entry of leased) start(entry, circuit, trial)
        // A full lease may leave more due: look again once a slot is free (start's end calls fill).
      } while (circuit.again)
    })()
      .catch((err) =>
        log.warn({ err, ...describeEndpoint(endpoint) }, 'webhook lease failed; tried again at the next pass'),
      )
      .finally(() => (circuit.filling = undefined))
    return circuit.filling
  }

  function start(entry: LeasedEntry, circuit: Circuit, trial: boolean) {
    circuit.inFlight++
    const delivery = send(entry, circuit, trial)
      .catch((err) =>
        log.warn(
          { err, eventId: entry.eventId, ...describeEndpoint(entry.endpoint) },
          'webhook delivery could not be recorded; tried again once its lease ends',
        ),
      )
      .finally(() => {
        circuit.inFlight--
        inFlight.delete(delivery)
        void fill(entry.endpoint, circuit)
      })
    inFlight.add(delivery)
  }

  async function send(entry: LeasedEntry, circuit: Circuit, trial: boolean) {
    const signer = signers.get(entry.endpoint)!
    const at = new Date()
    const headers = {
      'content-type': 'application/json',
      'webhook-id': entry.eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign(entry.eventId, at, entry.payload),
    }
    let error: string | undefined
    let answered = true
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping.signal])
      const res = await undiciFetch(entry.endpoint, {
        method: 'POST',
        headers,
        body: entry.payload,
        dispatcher,
        signal,
        redirect: 'manual',
      })
      await res.body?.cancel().catch(() => {})
      if (res.status < 200 || res.status >= 300) error = `the endpoint answered ${res.status}`
    } catch (err) {
      if (stopping.signal.aborted) {
        // Not the endpoint's fault: the entry is due again at once, for this instance after a restart or another one now.
        await outbox.release(entry)
        return
      }
      answered = false
      const cause = (err as Error).cause
      error =
        (err as Error).name === 'TimeoutError'
          ? `the endpoint did not answer within ${timeoutMs} ms`
          : `the endpoint could not be reached: ${cause instanceof Error ? cause.message : (err as Error).message}`
    }
    observe(entry.endpoint, circuit, answered, trial)
    if (error === undefined) {
      await outbox.delivered(entry)
      return
    }
    const attempts = entry.attempts + 1
    const giveUp = attempts >= config.maxAttempts
    const nextAt = giveUp ? undefined : Date.now() + Math.min(config.retryBaseMs * 2 ** (attempts - 1), 3_600_000)
    await outbox.failed(entry, nextAt, error)
    if (giveUp)
      log.warn(
        { eventId: entry.eventId, ...describeEndpoint(entry.endpoint), attempts, error },
        'webhook given up after its last attempt',
      )
    else
      log.info(
        { eventId: entry.eventId, ...describeEndpoint(entry.endpoint), attempts, error },
        'webhook delivery failed; retried with backoff',
      )
  }

  /** The circuit of an endpoint after a delivery: an answer (any status) closes it; silence counts toward opening it. */
  function observe(endpoint: string, circuit: Circuit, answered: boolean, trial: boolean) {
    if (answered) {
      if (circuit.open)
        log.info({ ...describeEndpoint(endpoint) }, 'webhook endpoint answers again: its circuit is closed')
      Object.assign(circuit, { failures: 0, open: false, openMs: settings.openMs })
      return
    }
    circuit.failures++
    if (circuit.open) {
      // A delivery sent before the circuit opened changes nothing; the half-open trial that fails makes it wait twice as long.
      if (!trial) return
      circuit.openMs = Math.min(circuit.openMs * 2, settings.maxOpenMs)
      circuit.openUntil = Date.now() + circuit.openMs
    } else if (circuit.failures >= settings.failures) {
      Object.assign(circuit, { open: true, openUntil: Date.now() + circuit.openMs })
      log.warn(
        { ...describeEndpoint(endpoint), failures: circuit.failures, openMs: circuit.openMs },
        'webhook endpoint keeps not answering: its circuit is open (its events wait in the outbox; one is tried when it half-opens)',
      )
    }
  }

  /** Entries queued for endpoints that are no longer configured: nothing more goes there. */
  async function giveUpOthers() {
    for (const entry of await outbox.leaseOthers(endpoints, 100, leaseMs)) {
      await outbox.failed(entry, undefined, 'the endpoint is no longer configured')
      log.warn(
        { eventId: entry.eventId, ...describeEndpoint(entry.endpoint) },
        'webhook given up: its endpoint is no longer configured',
      )
    }
  }

  /** Until no delivery is in flight and none is being leased (each delivery's end may start the next one of its endpoint). */
  async function idle() {
    const busy = () => [...inFlight, ...[...circuits.values()].flatMap((c) => (c.filling ? [c.filling] : []))]
    for (let pending = busy(); pending.length > 0; pending = busy()) await Promise.all(pending)
  }

  let passes = 0
  const pass = async () => {
    try {
      await scan()
      if (passes++ % othersEvery === 0) await giveUpOthers()
      await dispatch()
    } catch (err) {
      log.warn({ err }, 'webhook pass failed; tried again at the next interval')
    }
  }
  let running: Promise<void> | undefined
  const timer = setInterval(() => {
    if (running || stopping.signal.aborted) return
    running = pass().finally(() => (running = undefined))
  }, intervalMs)
  timer.unref()
  return {
    async runOnce() {
      await running
      await pass()
      await idle()
    },
    openCircuits: () => [...circuits.values()].filter((c) => c.open).length,
    async stop() {
      stopping.abort()
      clearInterval(timer)
      await running
      await idle()
      await dispatcher.close()
    },
  }
}
