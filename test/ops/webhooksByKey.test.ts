// Webhook endpoints per API key, against anvil: each execution remembers the key that asked for it
// (the journal's claim), and its events go to the global endpoints plus that key's own, never to
// another key's, each signed with its endpoint's secret; an execution without a key goes to the
// global endpoints only, also from another instance of a fleet. Journals written before the
// column (SQLite schema 3, PostgreSQL schema 4) still open, and a replaced attempt keeps its key.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import type { WebhooksConfig } from '../../src/config/webhooksConfig.ts'
import { hashApiKey } from '../../src/crypto/hashApiKey.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { eventually } from '../support/eventually.ts'
import { claimed, claimOf, hash, intentOf, relayer, signedTx } from '../support/journalContract.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { post, signedIntent, startTestGateway, startWorld, type World } from '../support/testGateway.ts'
import { undoLaterPostgresMigrations } from '../support/undoLaterPostgresMigrations.ts'
import { writeV1Journal } from '../support/v1Journal.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.ts'

const globalSecret = `whsec_${randomBytes(32).toString('base64')}`
const secretB = `whsec_${randomBytes(32).toString('base64')}`
const keyA = 'webhooks-by-key-test-key-aaaa'
const keyB = 'webhooks-by-key-test-key-bbbb'
const idA = hashApiKey(keyA).toString('hex').slice(0, 8)
const idB = hashApiKey(keyB).toString('hex').slice(0, 8)
const auth = { keyHashes: [hashApiKey(keyA), hashApiKey(keyB)], requireForValidate: false }

const startReceiver = (secret: string, options: { refuse?: boolean } = {}) => startWebhookReceiver(secret, options)
type Receiver = WebhookReceiver

const intentsOf = (r: Receiver) => new Set(r.deliveries.map((d) => d.intentHash))
const typesOf = (r: Receiver, intentHash: string) =>
  r.deliveries
    .filter((d) => d.intentHash === intentHash)
    .map((d) => d.type)
    .sort()
const finalIn = (r: Receiver, intentHash: string) =>
  r.deliveries.some((d) => d.intentHash === intentHash && d.type === 'final')

describe('webhook endpoints per API key', () => {
  let world: World
  let everyone: Receiver
  let a: Receiver
  let b: Receiver
  let config: WebhooksConfig
  const cleanup: Array<() => Promise<unknown>> = []
  const chain = { 'x-chain-id': '31337' }
  const bearer = (key: string) => ({ ...chain, authorization: `Bearer ${key}` })

  before(async () => {
    world = await startWorld()
    everyone = await startReceiver(globalSecret)
    a = await startReceiver(globalSecret)
    // Key B's endpoint verifies with key B's own secret.
    b = await startReceiver(secretB)
    cleanup.push(everyone.close, a.close, b.close)
    config = {
      urls: [everyone.url],
      secret: globalSecret,
      byKey: { [idA]: { urls: [a.url] }, [idB]: { urls: [b.url], secret: secretB } },
      maxAttempts: 6,
      retryBaseMs: 20,
    }
  })
  after(async () => {
    for (const c of cleanup.reverse()) await c()
    await world?.stop()
  })

  it("sends each key its own executions' events only, the global endpoint all of them, each signed with its endpoint's secret; a replay by another key changes nothing", async () => {
    const gateway = await startTestGateway({ chains: [world.devnet.chain], auth, webhooks: config })
    try {
      const byA = await post(
        gateway.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '4100' }),
        bearer(keyA),
      )
      assert.equal(byA.status, 200, byA.text)
      const byB = await post(
        gateway.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '4101' }),
        bearer(keyB),
      )
      assert.equal(byB.status, 200, byB.text)
      const [x, y] = [byA.headers.get('x-intent-hash')!, byB.headers.get('x-intent-hash')!]
      // The journal remembers who asked.
      assert.equal((await gateway.journal.get(x as `0x${string}`))?.apiKeyId, idA)
      assert.equal((await gateway.journal.get(y as `0x${string}`))?.apiKeyId, idB)
      // Key B sends key A's intent again: its outcome is replayed, and the execution stays key A's.
      const replay = await post(
        gateway.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '4100' }),
        bearer(keyB),
      )
      assert.equal(replay.status, 200, replay.text)
      assert.equal(replay.body.replayed, true)

      await eventually('every final event', 15_000, async () =>
        finalIn(everyone, x) && finalIn(everyone, y) && finalIn(a, x) && finalIn(b, y) ? true : undefined,
      )
      // Time for anything misrouted to arrive.
      await new Promise((r) => setTimeout(r, 1_500))
      assert.deepEqual(intentsOf(a), new Set([x]), "key A's endpoint gets key A's execution only")
      assert.deepEqual(intentsOf(b), new Set([y]), "key B's endpoint gets key B's execution only")
      assert.deepEqual(intentsOf(everyone), new Set([x, y]))
      for (const [r, h] of [
        [everyone, x],
        [everyone, y],
        [a, x],
        [b, y],
      ] as const)
        assert.deepEqual(typesOf(r, h), ['final', 'mined', 'submitted'])
      assert.deepEqual([everyone.badSignatures, a.badSignatures, b.badSignatures], [[], [], []])
      // The outbox holds each event once per endpoint it was meant for.
      const minedX = a.deliveries.find((d) => d.intentHash === x && d.type === 'mined')!.id
      assert.deepEqual(
        (await gateway.journal.webhooks.entriesOf(minedX)).map((e) => e.endpoint).sort(),
        [a.url, everyone.url].sort(),
      )
    } finally {
      await gateway.close()
    }
  })

  it('sends an execution without a key to the global endpoints only, from whichever instance of a fleet sent it', async () => {
    const database: TestDatabase = await createTestDatabase('webhooks_by_key')
    cleanup.push(() => database.drop())
    const storage = (instanceId: string) => ({ redisUrl: undefined, instanceId })
    const storageOptions = { postgres: { url: database.url } }
    const before = { everyone: everyone.deliveries.length, a: a.deliveries.length, b: b.deliveries.length }
    // The instance with the settings delivers; the other, open (no API keys), sends an execution without a key.
    const keyed = await startTestGateway({
      chains: [world.devnet.chain],
      auth,
      storageOptions,
      storage: storage('keyed'),
      webhooks: config,
    })
    const open = await startTestGateway({
      chains: [world.devnet.chain],
      storageOptions,
      storage: storage('open'),
      relayerPrivateKey: devnetAccounts.other,
    })
    try {
      const keyless = await post(
        open.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '4110' }),
        chain,
      )
      assert.equal(keyless.status, 200, keyless.text)
      const withA = await post(
        keyed.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '4111' }),
        bearer(keyA),
      )
      assert.equal(withA.status, 200, withA.text)
      const [z, w] = [keyless.headers.get('x-intent-hash')!, withA.headers.get('x-intent-hash')!]
      assert.equal((await keyed.journal.get(z as `0x${string}`))?.apiKeyId, undefined)
      await eventually('the final events', 15_000, async () =>
        finalIn(everyone, z) && finalIn(everyone, w) && finalIn(a, w) ? true : undefined,
      )
      await new Promise((r) => setTimeout(r, 1_500))
      assert.deepEqual(typesOf(everyone, z), ['final', 'mined', 'submitted'])
      assert.deepEqual(typesOf(a, z), [], "no key's endpoint gets an execution without a key")
      assert.deepEqual(typesOf(b, z), [])
      assert.deepEqual(typesOf(a, w), ['final', 'mined', 'submitted'])
      assert.equal(b.deliveries.length, before.b, 'key B asked for nothing here')
      assert.equal(a.deliveries.length - before.a, 3)
      assert.equal(everyone.deliveries.length - before.everyone, 6)
    } finally {
      await open.close()
      await keyed.close()
    }
  })

  it("gives up what was queued for a key's endpoint once that endpoint is taken out of the settings: nothing more goes there", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-removed-'))
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }))
    const journal = { path: join(dir, 'journal.sqlite'), synchronous: 'normal' as const }
    const leaving = await startReceiver(globalSecret, { refuse: true })
    cleanup.push(leaving.close)
    const first = await startTestGateway({
      chains: [world.devnet.chain],
      auth,
      storageOptions: { sqlite: journal },
      webhooks: { ...config, urls: [], byKey: { [idA]: { urls: [leaving.url] } }, retryBaseMs: 300 },
    })
    let intentHash: string
    try {
      const res = await post(
        first.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '4120' }),
        bearer(keyA),
      )
      assert.equal(res.status, 200, res.text)
      intentHash = res.headers.get('x-intent-hash')!
      await eventually('a refused delivery', 10_000, async () =>
        leaving.tries.some((id) => id.includes(intentHash)) ? true : undefined,
      )
    } finally {
      await first.close()
    }
    // Restarted without key A's endpoint.
    const tried = leaving.tries.length
    const second = await startTestGateway({
      chains: [world.devnet.chain],
      auth,
      storageOptions: { sqlite: journal },
      webhooks: { ...config, byKey: { [idB]: { urls: [b.url], secret: secretB } } },
    })
    try {
      const eventId = leaving.tries.find((id) => id.includes(intentHash))!
      await eventually('given up', 10_000, async () =>
        (await second.journal.webhooks.entriesOf(eventId)).some(
          (e) => e.endpoint === leaving.url && e.lastError === 'the endpoint is no longer configured',
        )
          ? true
          : undefined,
      )
      await new Promise((r) => setTimeout(r, 1_000))
      assert.equal(leaving.tries.length, tried, 'nothing more was sent to the removed endpoint')
      assert.deepEqual(
        (await second.journal.webhooks.entriesOf(eventId))
          .filter((e) => e.endpoint === leaving.url)
          .map((e) => e.delivered),
        [false],
      )
      assert.ok(second.logs.some((l) => l.includes('webhook given up: its endpoint is no longer configured')))
    } finally {
      await second.close()
    }
  })
})

describe('the journal keeps the asking key (SQLite and PostgreSQL), and older journals open', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-by-key-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  /** A claim with a key reads back with it, and a replaced attempt (re-priced) carries it on. */
  async function keepsTheKey(journal: Journal) {
    const record = await claimed(journal, { ...claimOf(77), apiKeyId: idA })
    assert.equal(record.apiKeyId, idA)
    await journal.recordSigned(record, signedTx(1))
    const next = await journal.replace(record, signedTx(2), 're-priced: higher fees')
    assert.equal(next.attempt, 2)
    assert.equal(next.apiKeyId, idA)
    assert.deepEqual(
      (await journal.attempts('eip155:1', hash(77))).map((r) => r.apiKeyId),
      [idA, idA],
    )
    const keyless = await claimed(journal, claimOf(78))
    assert.equal(keyless.apiKeyId, undefined)
    assert.ok(!('apiKeyId' in keyless), 'a record without a key has no apiKeyId field')
  }

  it('SQLite: a schema-1 file is upgraded, its records have no key, new claims keep theirs', async () => {
    mkdirSync(join(dir, 'v1'))
    const path = join(dir, 'v1', 'journal.sqlite')
    const intent = JSON.stringify(intentOf(1n), (_, v) => (typeof v === 'bigint' ? v.toString() : v))
    writeV1Journal(path, [
      {
        id: 1,
        chain_id: 'eip155:1',
        intent_hash: hash(1),
        sender: '0xabc0000000000000000000000000000000000001',
        intent_nonce: '1',
        intent,
        state: 'mined',
        status: 0x11,
        relayer,
        tx_nonce: 1,
        transaction_hash: hash(1001),
        raw_transaction: '0x02f80001',
        block_number: '5',
        gas_used: '21000',
        return_data: '0x',
        created_at: 1_700_000_000_000,
        updated_at: 1_700_000_000_000,
      },
    ])
    const journal = openJournal({ path })
    try {
      const old = await journal.get(hash(1), 'eip155:1')
      assert.equal(old?.state, 'mined')
      assert.equal(old?.apiKeyId, undefined)
      await keepsTheKey(journal)
    } finally {
      journal.close()
    }
    // And again after a reopen.
    const again = openJournal({ path })
    assert.equal((await again.get(hash(77), 'eip155:1'))?.apiKeyId, idA)
    again.close()
  })

  it('PostgreSQL: a schema-4 database gains the column, its records have no key, new claims keep theirs', async () => {
    const database = await createTestDatabase('journal_key')
    try {
      const first = await openPostgresJournal({ url: database.url })
      await claimed(first, claimOf(1))
      await first.close()
      // As a gateway of schema 4 left it: no column, no migration 5 or later.
      const admin = new pg.Client({ connectionString: database.url })
      await admin.connect()
      await admin.query('ALTER TABLE executions DROP COLUMN api_key_id')
      await admin.query('ALTER TABLE x402_payments DROP COLUMN pending_request')
      await admin.query(
        'DROP TRIGGER executions_change_xid ON executions; DROP FUNCTION executions_change_xid; ALTER TABLE executions DROP COLUMN change_xid',
      )
      await admin.query('DROP TABLE webhook_feed; DROP INDEX webhook_outbox_endpoint_due')
      await undoLaterPostgresMigrations(admin)
      await admin.query('DELETE FROM journal_migrations WHERE version >= 5')
      await admin.end()

      const journal = await openPostgresJournal({ url: database.url })
      try {
        const old = await journal.get(hash(1), 'eip155:1')
        assert.equal(old?.state, 'claimed')
        assert.equal(old?.apiKeyId, undefined)
        await keepsTheKey(journal)
      } finally {
        await journal.close()
      }
    } finally {
      await database.drop()
    }
  })
})
