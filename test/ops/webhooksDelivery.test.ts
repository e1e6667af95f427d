// The webhook dispatcher against real receivers on loopback and a real journal (SQLite, and the
// local PostgreSQL where the query differs), without a chain: the journal's records are written
// through its own operations as an execute would write them. What a stranger or a burst could do
// to webhooks: a token in the URL's path logged, an internal address reached in production.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { Writable } from 'node:stream'
import { after, describe, it } from 'node:test'
import pino from 'pino'
import type { WebhooksConfig } from '../../src/config/webhooksConfig.ts'
import { toExecutionEvents } from '../../src/intents/toExecutionEvents.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { describeEndpoint } from '../../src/webhooks/describeEndpoint.ts'
import { startWebhookDispatcher } from '../../src/webhooks/startWebhookDispatcher.ts'
import { claimed, claimOf, mined, signedTx } from '../support/journalContract.ts'

const secret = `whsec_${randomBytes(32).toString('base64')}`
const config = (urls: string[], more: Partial<WebhooksConfig> = {}): WebhooksConfig => ({ urls, secret, maxAttempts: 6, retryBaseMs: 10, ...more })

type Receiver = { url: string; ids: string[]; requests: number; close(): Promise<void> }

/** A receiver on loopback that records the webhook-id of each request and answers as `answer` says (or never, for a tarpit). */
async function startReceiver(path = '/hooks', answer: (req: IncomingMessage, res: ServerResponse) => void = (_, res) => res.writeHead(200).end()): Promise<Receiver> {
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

/** One execution as an execute writes it: claimed, signed, mined (three events: submitted, mined, final). */
async function execution(journal: Journal, n: number) {
  const record = await claimed(journal, claimOf(n))
  await journal.recordSigned(record, signedTx(n))
  assert.ok(await journal.settle(record, mined))
  return record
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
    const dispatcher = startWebhookDispatcher({ journal, config: config([receiver.url], { maxAttempts: 2 }), logger, publicOnly: false, intervalMs: 60_000 })
    cleanup.push(() => dispatcher.stop())
    await execution(journal, 1)
    await dispatcher.runOnce()
    await new Promise((r) => setTimeout(r, 30))
    await dispatcher.runOnce()
    assert.ok(receiver.requests >= 2, 'the endpoint was called and failed')
    const failures = lines.filter((l) => l.includes('webhook delivery failed') || l.includes('webhook given up'))
    assert.ok(failures.some((l) => l.includes('webhook delivery failed')) && failures.some((l) => l.includes('webhook given up')), lines.join(''))
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
    const dispatcher = startWebhookDispatcher({ journal, config: config([receiver.url]), logger, publicOnly: true, intervalMs: 60_000 })
    cleanup.push(() => dispatcher.stop())
    const record = await execution(journal, 2)
    await dispatcher.runOnce()
    assert.equal(receiver.requests, 0, 'nothing reached the internal address')
    const [submitted] = toExecutionEvents(await journal.attempts(record.chainId, record.intentHash))
    const entries = await journal.webhooks.entriesOf(submitted!.id)
    assert.equal(entries.length, 1)
    assert.equal(entries[0]!.delivered, false)
    assert.match(entries[0]!.lastError ?? '', /127\.0\.0\.1 is a loopback, private, link-local or reserved address; refused in production/)
  })
})
