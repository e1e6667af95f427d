// The webhook dispatcher against real receivers on loopback and a real journal (SQLite, and the
// local PostgreSQL where the query differs), without a chain: the journal's records are written
// through its own operations as an execute would write them. What a stranger or a burst could do
// to webhooks: a token in the URL's path logged, an internal address reached in production.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { Writable } from 'node:stream'
import { after, describe, it } from 'node:test'
import pg from 'pg'
import pino from 'pino'
import { Registry } from 'prom-client'
import type { WebhooksConfig } from '../../src/config/webhooksConfig.ts'
import { toExecutionEvents } from '../../src/intents/toExecutionEvents.ts'
import { createMetrics } from '../../src/metrics/createMetrics.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { describeEndpoint } from '../../src/webhooks/describeEndpoint.ts'
import { startWebhookDispatcher } from '../../src/webhooks/startWebhookDispatcher.ts'
import { eventually } from '../support/eventually.ts'
import { claimed, claimOf, mined, signedTx } from '../support/journalContract.ts'
import { createTestDatabase } from '../support/postgresDatabase.ts'
import { undoLaterPostgresMigrations } from '../support/undoLaterPostgresMigrations.ts'

const secret = `whsec_${randomBytes(32).toString('base64')}`
const config = (urls: string[], more: Partial<WebhooksConfig> = {}): WebhooksConfig => ({
  urls,
  secret,
  maxAttempts: 6,
  retryBaseMs: 10,
  ...more,
})

type Receiver = { url: string; ids: string[]; requests: number; close(): Promise<void> }

/** A receiver on loopback that records the webhook-id of each request and answers as `answer` says (or never, for a tarpit). */
async function startReceiver(
  path = '/hooks',
  answer: (req: IncomingMessage, res: ServerResponse) => void = (_, res) => res.writeHead(200).end(),
): Promise<Receiver> {
  const receiver = { url: '', ids: [] as string[], requests: 0, close: async () => {} }
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      receiver.requests++
      receiver.ids.push(String(req.headers['webhook-id']))
      answer(req, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return receiver
}

/** A logger whose lines are kept, as an operator's log collector would get them. */
function capturedLogger() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { logger: pino({ level: 'debug' }, stream), lines }
}

/** One execution as an execute writes it: claimed, signed, mined (three events: submitted, mined, final), or only as far as signed (submitted). */
async function execution(journal: Journal, n: number, { settle = true } = {}) {
  const record = await claimed(journal, claimOf(n))
  await journal.recordSigned(record, signedTx(n))
  if (settle) assert.ok(await journal.settle(record, mined))
  return record
}

/** Passes until one delivers nothing new (a dispatcher that leases a few entries a pass still gets everything it can). */
async function drain(dispatcher: { runOnce(): Promise<void> }, receiver: Receiver) {
  for (let pass = 0, before = -1; pass < 200 && before !== receiver.requests; pass++) {
    before = receiver.requests
    await dispatcher.runOnce()
  }
}

const cleanup: Array<() => unknown> = []
after(async () => {
  for (const c of cleanup.reverse()) await c()
})

describe('webhook delivery: what the logs and the connections show', () => {
  it('logs a failing endpoint by its origin and a short hash of its path, never the token in the path', async () => {
    const token = 'T0AAAAAAA/B0BBBBBBB/xoxbSeCrEtToKeN1234567890'
    const receiver = await startReceiver(`/services/${token}`, (_, res) => res.writeHead(500).end())
    cleanup.push(receiver.close)
    const journal = openJournal({ path: ':memory:' })
    cleanup.push(() => journal.close())
    const { logger, lines } = capturedLogger()
    const dispatcher = startWebhookDispatcher({
      journal,
      config: config([receiver.url], { maxAttempts: 2 }),
      logger,
      publicOnly: false,
      intervalMs: 60_000,
    })
    cleanup.push(() => dispatcher.stop())
    await execution(journal, 1)
    await dispatcher.runOnce()
    await new Promise((r) => setTimeout(r, 30))
    await dispatcher.runOnce()
    assert.ok(receiver.requests >= 2, 'the endpoint was called and failed')
    const failures = lines.filter((l) => l.includes('webhook delivery failed') || l.includes('webhook given up'))
    assert.ok(
      failures.some((l) => l.includes('webhook delivery failed')) &&
        failures.some((l) => l.includes('webhook given up')),
      lines.join(''),
    )
    const all = lines.join('')
    assert.ok(!all.includes('xoxbSeCrEtToKeN'), 'the token is in no log line')
    assert.ok(!all.includes('/services/'), 'nor is the path')
    const { endpoint, endpointPath } = describeEndpoint(receiver.url)
    assert.equal(endpoint, new URL(receiver.url).origin)
    assert.match(endpointPath, /^sha256:[0-9a-f]{8}$/)
    for (const line of failures) {
      const parsed = JSON.parse(line) as Record<string, unknown>
      assert.equal(parsed.endpoint, endpoint)
      assert.equal(parsed.endpointPath, endpointPath)
    }
  })

  it('in production, delivers nothing to an endpoint at an internal IP literal (a literal is never looked up): refused before connecting', async () => {
    const receiver = await startReceiver()
    cleanup.push(receiver.close)
    const journal = openJournal({ path: ':memory:' })
    cleanup.push(() => journal.close())
    const { logger } = capturedLogger()
    // The settings would refuse this URL at start-up; the connection refuses it too, whatever the settings let through.
    const dispatcher = startWebhookDispatcher({
      journal,
      config: config([receiver.url]),
      logger,
      publicOnly: true,
      intervalMs: 60_000,
    })
    cleanup.push(() => dispatcher.stop())
    const record = await execution(journal, 2)
    await dispatcher.runOnce()
    assert.equal(receiver.requests, 0, 'nothing reached the internal address')
    const [submitted] = toExecutionEvents(await journal.attempts(record.chainId, record.intentHash))
    const entries = await journal.webhooks.entriesOf(submitted!.id)
    assert.equal(entries.length, 1)
    assert.equal(entries[0]!.delivered, false)
    assert.match(
      entries[0]!.lastError ?? '',
      /127\.0\.0\.1 is a loopback, private, link-local or reserved address; refused in production/,
    )
  })
})

/** The ids of every event the journal holds for these executions (three each: submitted, mined, final). */
async function eventIds(journal: Journal, records: Array<{ chainId: string; intentHash: `0x${string}` }>) {
  const ids: string[] = []
  for (const r of records)
    for (const e of toExecutionEvents(await journal.attempts(r.chainId, r.intentHash))) ids.push(e.id)
  return ids
}

const backends: Array<{ name: string; open(): Promise<{ journal: Journal; url?: string }> }> = [
  { name: 'SQLite', open: async () => ({ journal: openJournal({ path: ':memory:' }) }) },
  {
    name: 'PostgreSQL',
    async open() {
      const database = await createTestDatabase('webhooks_burst')
      const journal = await openPostgresJournal({ url: database.url })
      cleanup.push(() => database.drop())
      return { journal, url: database.url }
    },
  },
]

describe('webhooks after a burst: the change feed is read in commit order, page after page', () => {
  for (const backend of backends) {
    it(`${backend.name}: 520 executions sent within a second (1,040 changes), then 3 more: every event of all 523 is delivered, once`, async () => {
      const receiver = await startReceiver()
      cleanup.push(receiver.close)
      const { journal } = await backend.open()
      cleanup.push(() => journal.close())
      const { logger } = capturedLogger()
      const dispatcher = startWebhookDispatcher({
        journal,
        config: config([receiver.url]),
        logger,
        publicOnly: false,
        intervalMs: 60_000,
      })
      cleanup.push(() => dispatcher.stop())
      await dispatcher.runOnce()
      // One busy block: 520 executions claimed and signed within a second or so (their events: 520 submitted).
      const burst = []
      for (let i = 0; i < 520; i += 40)
        burst.push(
          ...(await Promise.all(
            Array.from({ length: 40 }, (_, j) => execution(journal, 10_000 + i + j, { settle: false })),
          )),
        )
      await drain(dispatcher, receiver)
      const later = []
      for (let i = 0; i < 3; i++) later.push(await execution(journal, 20_000 + i))
      await drain(dispatcher, receiver)
      const expected = await eventIds(journal, [...burst, ...later])
      assert.equal(expected.length, 520 + 3 * 3)
      const got = new Set(receiver.ids)
      assert.deepEqual(
        (await eventIds(journal, later)).filter((id) => !got.has(id)),
        [],
        'the later executions events are delivered',
      )
      assert.equal(expected.filter((id) => !got.has(id)).length, 0, 'every event of the burst is delivered')
      assert.equal(receiver.ids.length, expected.length, 'each once')
    })
  }

  it('PostgreSQL: a change committed late, by a writer whose clock is a minute behind, still becomes an event', async () => {
    const receiver = await startReceiver()
    cleanup.push(receiver.close)
    const { journal, url } = await backends[1]!.open()
    cleanup.push(() => journal.close())
    const { logger } = capturedLogger()
    const dispatcher = startWebhookDispatcher({
      journal,
      config: config([receiver.url]),
      logger,
      publicOnly: false,
      intervalMs: 60_000,
    })
    cleanup.push(() => dispatcher.stop())
    await dispatcher.runOnce()
    // Another instance signs an execution, then settles it in a transaction that commits late, with its own (late) clock.
    const slow = await claimed(journal, claimOf(30_000))
    await journal.recordSigned(slow, signedTx(30_000))
    const other = new pg.Client({ connectionString: url })
    await other.connect()
    cleanup.push(() => other.end())
    await other.query('BEGIN')
    await other.query(
      `UPDATE executions SET state = 'mined', status = 17, block_number = '7', final = 1, updated_at = $1 WHERE id = $2`,
      [Date.now() - 60_000, slow.id],
    )
    // Meanwhile this instance makes changes of its own (they wait for the open transaction to end: the feed never passes it).
    const meanwhile = await execution(journal, 30_001)
    await dispatcher.runOnce()
    await other.query('COMMIT')
    await drain(dispatcher, receiver)
    const got = () => new Set(receiver.ids)
    // The feed reads below the server's oldest running transaction: one of another database on this
    // server (test files beside this one) holds it back for a while, and drain's pass that delivered
    // nothing is not the end then. Passes go on until both are delivered, or 20 s.
    await eventually('the changes around it and the late change delivered', 20_000, async () => {
      await drain(dispatcher, receiver)
      const missing = (await eventIds(journal, [meanwhile, slow])).filter((id) => !got().has(id))
      return missing.length === 0 ? true : undefined
    }).catch(() => {})
    assert.deepEqual(
      (await eventIds(journal, [meanwhile])).filter((id) => !got().has(id)),
      [],
      'the changes around it are delivered',
    )
    const late = toExecutionEvents(await journal.attempts(slow.chainId, slow.intentHash)).map((e) => e.type)
    assert.deepEqual(late, ['submitted', 'mined', 'final'])
    assert.deepEqual(
      (await eventIds(journal, [slow])).filter((id) => !got().has(id)),
      [],
      'the late change became its events',
    )
  })
})

describe('webhooks per endpoint: one that never answers delays no one else', () => {
  it('a tarpit beside a healthy endpoint: the healthy one gets all its events before the tarpit times out once; the tarpit circuit opens, and once it heals it gets every event', async () => {
    const healthyIds: string[] = []
    const healthy = await startReceiver('/ok', (req, res) => {
      healthyIds.push(String(req.headers['webhook-id']))
      res.writeHead(200).end()
    })
    cleanup.push(healthy.close)
    let healed = false
    const tarpitIds: string[] = []
    // Until healed it takes the request and never answers.
    const tarpit = await startReceiver('/tarpit', (req, res) => {
      if (!healed) return
      tarpitIds.push(String(req.headers['webhook-id']))
      res.writeHead(200).end()
    })
    cleanup.push(tarpit.close)
    const journal = openJournal({ path: ':memory:' })
    cleanup.push(() => journal.close())
    const { logger, lines } = capturedLogger()
    const timeoutMs = 2_000
    const dispatcher = startWebhookDispatcher({
      journal,
      config: config([tarpit.url, healthy.url], { maxAttempts: 12 }),
      logger,
      publicOnly: false,
      intervalMs: 100,
      timeoutMs,
      breaker: { failures: 4, openMs: 1_500 },
    })
    cleanup.push(() => dispatcher.stop())
    const records = []
    for (let i = 0; i < 10; i++) records.push(await execution(journal, 40_000 + i))
    const ids = await eventIds(journal, records)
    assert.equal(ids.length, 30)
    const started = Date.now()
    await eventually('every event at the healthy endpoint', timeoutMs, async () =>
      ids.every((id) => healthyIds.includes(id)) ? true : undefined,
    )
    assert.ok(Date.now() - started < timeoutMs, 'before one delivery to the tarpit has timed out')
    assert.ok(tarpit.requests <= 4, `at most 4 deliveries in flight to the tarpit (${tarpit.requests})`)
    // It keeps not answering: its circuit opens, and nothing more is sent while it is open.
    await eventually('the tarpit circuit open', 4 * timeoutMs, async () =>
      dispatcher.openCircuits() === 1 ? true : undefined,
    )
    assert.ok(lines.some((l) => l.includes('its circuit is open')))
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    metrics.observe({
      journalBacklog: async () => 0,
      relayerBalances: [],
      webhookCircuitsOpen: () => dispatcher.openCircuits(),
    })
    assert.match(
      await metrics.registry.getSingleMetricAsString('intent_gateway_webhook_circuits_open'),
      /^intent_gateway_webhook_circuits_open 1$/m,
    )
    // (Deliveries started before it opened may still be arriving.)
    await new Promise((r) => setTimeout(r, 200))
    const whileOpen = tarpit.requests
    await new Promise((r) => setTimeout(r, 600))
    assert.equal(tarpit.requests, whileOpen, 'nothing sent while the circuit is open')
    healed = true
    // Half-open: one trial, answered, closes it; then every event, none lost.
    await eventually('every event at the healed tarpit', 6 * timeoutMs, async () =>
      ids.every((id) => tarpitIds.includes(id)) ? true : undefined,
    )
    assert.equal(dispatcher.openCircuits(), 0)
    assert.equal(new Set(tarpitIds).size, tarpitIds.length, 'each answered delivery once')
    assert.equal(healthyIds.length, 30, 'the healthy endpoint got each event once')
  })

  it('PostgreSQL: two dispatchers on one journal, a slow endpoint: each event is delivered once (a lease outlives its delivery)', async () => {
    const answered: string[] = []
    const slow = await startReceiver('/slow', (req, res) => {
      setTimeout(() => {
        answered.push(String(req.headers['webhook-id']))
        res.writeHead(200).end()
      }, 2_000)
    })
    cleanup.push(slow.close)
    const { journal, url } = await backends[1]!.open()
    cleanup.push(() => journal.close())
    const second = await openPostgresJournal({ url: url! })
    cleanup.push(() => second.close())
    const records = []
    for (let i = 0; i < 9; i++) records.push(await execution(journal, 50_000 + i))
    const ids = await eventIds(journal, records)
    const dispatchers = [journal, second].map((j) =>
      startWebhookDispatcher({
        journal: j,
        config: config([slow.url]),
        logger: capturedLogger().logger,
        publicOnly: false,
        intervalMs: 100,
      }),
    )
    for (const d of dispatchers) cleanup.push(() => d.stop())
    await eventually('every event delivered', 60_000, async () =>
      ids.every((id) => answered.includes(id)) ? true : undefined,
    )
    await new Promise((r) => setTimeout(r, 2_500))
    assert.equal(slow.requests, ids.length, 'one request per event, from either instance')
    assert.equal(answered.length, ids.length)
  })
})

describe('the journal change feed (Journal.changesAfter)', () => {
  for (const backend of backends) {
    it(`${backend.name}: each change once, in order; a record changed again comes again; a released claim's place is not given again; a start by time`, async () => {
      const { journal } = await backend.open()
      cleanup.push(() => journal.close())
      const start = await journal.changePositionAt(Date.now())
      assert.deepEqual((await journal.changesAfter(start, 10)).records, [])
      const a = await claimed(journal, claimOf(60_000))
      const gone = await claimed(journal, claimOf(60_001))
      const first = await journal.changesAfter(start, 10)
      assert.deepEqual(
        first.records.map((r) => r.id),
        [a.id, gone.id],
      )
      // The last change's claim is given back (deleted): a later change must still come after the position read.
      await journal.release(gone)
      const b = await claimed(journal, claimOf(60_002))
      await journal.recordSigned(a, signedTx(60_000))
      const second = await journal.changesAfter(first.position, 10)
      assert.deepEqual(
        second.records.map((r) => [r.id, r.state]),
        [
          [b.id, 'claimed'],
          [a.id, 'pending'],
        ],
      )
      // Paged: one at a time, the same records in the same order.
      const paged = []
      for (
        let p = start, page = await journal.changesAfter(p, 1);
        page.records.length > 0;
        p = page.position, page = await journal.changesAfter(p, 1)
      )
        paged.push(page.records[0]!.id)
      assert.deepEqual(paged, [b.id, a.id])
      assert.deepEqual((await journal.changesAfter(second.position, 10)).records, [])
      // A start by time comes before every change made since.
      const from = await journal.changePositionAt(Date.now() - 60_000)
      assert.deepEqual(
        (await journal.changesAfter(from, 10)).records.map((r) => r.id),
        [b.id, a.id],
      )
    })
  }
})

describe('the change feed after an upgrade', () => {
  it('PostgreSQL schema 6 → 7: the feed starts where the old scan had got to (its cursor, less its 5 s overlap): later changes become events, earlier ones do not come again', async () => {
    const receiver = await startReceiver()
    cleanup.push(receiver.close)
    const database = await createTestDatabase('webhooks_upgrade')
    cleanup.push(() => database.drop())
    const before = await openPostgresJournal({ url: database.url })
    const scanned = await execution(before, 70_000)
    const unscanned = await execution(before, 70_001)
    await before.close()
    // As a gateway of schema 6 left it: its scan had reached half an hour ago, past the first execution's last change.
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    await admin.query('UPDATE executions SET updated_at = $1 WHERE id = $2', [Date.now() - 3_600_000, scanned.id])
    await admin.query(
      'DROP TRIGGER executions_change_xid ON executions; DROP FUNCTION executions_change_xid; ALTER TABLE executions DROP COLUMN change_xid',
    )
    await undoLaterPostgresMigrations(admin)
    await admin.query(
      'DROP TABLE webhook_feed; DROP INDEX webhook_outbox_endpoint_due; DELETE FROM journal_migrations WHERE version >= 7',
    )
    await admin.query('INSERT INTO webhook_cursor (id, scanned_to) VALUES (1, $1)', [Date.now() - 1_800_000])
    await admin.end()

    const journal = await openPostgresJournal({ url: database.url })
    cleanup.push(() => journal.close())
    const dispatcher = startWebhookDispatcher({
      journal,
      config: config([receiver.url]),
      logger: capturedLogger().logger,
      publicOnly: false,
      intervalMs: 60_000,
    })
    cleanup.push(() => dispatcher.stop())
    await drain(dispatcher, receiver)
    assert.deepEqual(receiver.ids.sort(), (await eventIds(journal, [unscanned])).sort())
  })
})
