import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { claimOf, journalContract, mined, signedTx } from '../../../test/support/journalContract.ts'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgresDatabase.ts'
import { ConfigError } from '../../errors/configError.ts'
import { StorageUnavailableError } from '../../errors/storageUnavailableError.ts'
import type { ExecutionRecord, Journal } from '../../ports/journal.ts'
import { openPostgresJournal, postgresJournalSchemaVersion } from './openPostgresJournal.ts'

let database: TestDatabase
const opened: Journal[] = []
before(async () => {
  database = await createTestDatabase('journal')
})
after(async () => {
  for (const journal of opened) await journal.close()
  await database?.drop()
})

/** An empty journal: the tables emptied, the schema kept. */
async function openEmpty(options: { preparedStatements?: boolean } = {}): Promise<Journal> {
  const journal = await openPostgresJournal({ url: database.url, ...options })
  opened.push(journal)
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  await client.query('TRUNCATE executions, x402_payments RESTART IDENTITY')
  await client.end()
  return journal
}

describe('journal contract: PostgreSQL', () => journalContract(openEmpty))
describe('journal contract: PostgreSQL without prepared statements (DATABASE_PREPARED_STATEMENTS=false)', () =>
  journalContract(() => openEmpty({ preparedStatements: false })))

/** The texts of the statements every journal's pool sends while `work` runs. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = []
  const query = pg.Pool.prototype.query
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    const first = args[0] as string | { text: string }
    texts.push(typeof first === 'string' ? first : first.text)
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    await work()
  } finally {
    pg.Pool.prototype.query = query
  }
  return texts
}

describe('openPostgresJournal: the writes of one turn', () => {
  it("claims, signs, settles and reads a turn's executes in one statement each, each call answered as alone", async () => {
    const journal = await openEmpty()
    const n = 20
    let records: ExecutionRecord[] = []
    const claims = await statementsOf(async () => {
      const answers = await Promise.all(Array.from({ length: n }, (_, i) => journal.claim(claimOf(500 + i))))
      records = answers.map((a) => (assert.ok(a.ok), a.record))
    })
    assert.equal(claims.length, 2, `the insert, then the read of reverted attempts: ${claims.join('; ')}`)
    assert.equal(new Set(records.map((r) => r.id)).size, n)

    // Signed in the reverse order of their ids: the order they were signed in is kept.
    const signs = await statementsOf(() =>
      Promise.all(records.toReversed().map((r, i) => journal.recordSigned(r, signedTx(i)))),
    )
    assert.equal(signs.length, 1)
    const pending = await journal.pending()
    assert.deepEqual(
      pending.map((r) => r.transaction?.details),
      Array.from({ length: n }, (_, txNonce) => ({ txNonce })),
    )
    assert.deepEqual(
      pending.map((r) => r.id),
      records.map((r) => r.id).toReversed(),
    )

    const settles = await statementsOf(async () => {
      assert.deepEqual(await Promise.all(records.map((r) => journal.settle(r, mined))), Array(n).fill(true))
    })
    assert.equal(settles.length, 1)
    const reads = await statementsOf(async () => {
      const got = await Promise.all(records.map((r) => journal.get(r.intentHash, r.chainId)))
      assert.deepEqual(
        got.map((r) => [r?.id, r?.state]),
        records.map((r) => [r.id, 'mined']),
      )
    })
    assert.equal(reads.length, 1)
  })

  it('asks the calls of a batch the server aborted for a deadlock one by one, each answered as alone', async () => {
    const journal = await openEmpty()
    // The first batched statement of each kind fails as a deadlock would (nothing of it written).
    const query = pg.Pool.prototype.query
    const aborted = new Set<string>()
    pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
      const text = (args[0] as { text?: string }).text ?? String(args[0])
      const kind = /unnest/.test(text) && /^(INSERT|UPDATE)/.test(text) ? text.slice(0, 60) : undefined
      if (kind && !aborted.has(kind)) {
        aborted.add(kind)
        return Promise.reject(Object.assign(new Error('deadlock detected'), { code: '40P01' }))
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args)
    } as typeof query
    try {
      const claims = await Promise.all([
        journal.claim(claimOf(700)),
        journal.claim(claimOf(701)),
        journal.claim(claimOf(700)),
      ])
      assert.deepEqual(
        claims.map((c) => c.ok),
        [true, true, false],
      )
      const records = claims.flatMap((c) => (c.ok ? [c.record] : []))
      await Promise.all(records.map((r, i) => journal.recordSigned(r, signedTx(i))))
      assert.deepEqual(await Promise.all(records.map((r) => journal.settle(r, mined))), [true, true])
    } finally {
      pg.Pool.prototype.query = query
    }
    assert.deepEqual(
      [...aborted].length,
      3,
      'the claims, the signed records and the settlements were each aborted once',
    )
    assert.deepEqual(
      (await Promise.all([claimOf(700), claimOf(701)].map((c) => journal.get(c.intentHash, c.chainId)))).map(
        (r) => r?.state,
      ),
      ['mined', 'mined'],
    )
  })

  it('answers a conflict within one turn as two turns would: one claim, one settlement, a reverted intent held', async () => {
    const journal = await openEmpty()
    // One intent twice, and another intent with its (sender, nonce): one holder.
    const [first, again, sameNonce] = await Promise.all([
      journal.claim(claimOf(600)),
      journal.claim(claimOf(600)),
      journal.claim(claimOf(601, 600n)),
    ])
    assert.ok(first.ok)
    assert.ok(!again.ok && again.holder.id === first.record.id)
    assert.ok(!sameNonce.ok && sameNonce.holder.id === first.record.id)

    await journal.recordSigned(first.record, signedTx(1))
    // Settled twice in one turn: the second finds it settled already.
    assert.deepEqual(
      await Promise.all([
        journal.settle(first.record, { ...mined, state: 'reverted', status: 0x50 }),
        journal.settle(first.record, mined),
      ]),
      [true, false],
    )
    assert.equal((await journal.get(first.record.intentHash, first.record.chainId))?.state, 'reverted')

    // A reverted intent holds its hash, whatever else its turn claims; its claim is not left behind.
    const [held, other] = await Promise.all([journal.claim(claimOf(600)), journal.claim(claimOf(602))])
    assert.ok(!held.ok && held.holder.id === first.record.id && held.holder.state === 'reverted')
    assert.ok(other.ok)
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const { rows } = await client.query(`SELECT id FROM executions WHERE intent_hash = $1 AND state = 'claimed'`, [
      first.record.intentHash,
    ])
    await client.end()
    assert.deepEqual(rows, [])
  })
})

describe('openPostgresJournal', () => {
  it('migrates once, with several gateways starting at once, and records the version', async () => {
    const journals = await Promise.all([1, 2, 3].map(() => openPostgresJournal({ url: database.url })))
    opened.push(...journals)
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const { rows } = await client.query('SELECT version FROM journal_migrations ORDER BY version')
    await client.end()
    assert.deepEqual(
      rows.map((r) => r.version),
      Array.from({ length: postgresJournalSchemaVersion }, (_, i) => i + 1),
    )
  })

  it('lets exactly one of several gateways claim an intent, or a (sender, nonce), at the same moment', async () => {
    const journals = [
      await openEmpty(),
      ...(await Promise.all([1, 2].map(() => openPostgresJournal({ url: database.url })))),
    ]
    opened.push(...journals.slice(1))
    const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => journals[i % 3]!.claim(claimOf(1))))
    assert.equal(claims.filter((c) => c.ok).length, 1)
    // Other intents, one (sender, nonce): still one holder.
    const sameNonce = await Promise.all(
      Array.from({ length: 30 }, (_, i) => journals[i % 3]!.claim(claimOf(100 + i, 7n))),
    )
    assert.equal(sameNonce.filter((c) => c.ok).length, 1)
  })

  it('keeps signed records for the next gateway, and gives back a claim another gateway left only once it is stale', async () => {
    const first = await openEmpty()
    const signed = await first.claim(claimOf(1))
    assert.ok(signed.ok)
    await first.recordSigned(signed.record, signedTx(4))
    await first.close()
    const second = await openPostgresJournal({ url: database.url, staleClaimMs: 60_000 })
    opened.push(second)
    assert.deepEqual(
      (await second.pending()).map((r) => r.transaction),
      [signedTx(4)],
    )

    // A claim of a gateway that died before signing: live for a while, then taken over.
    const left = await second.claim(claimOf(2))
    assert.ok(left.ok)
    assert.equal((await second.claim(claimOf(2))).ok, false, 'a fresh claim holds')
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    await client.query('UPDATE executions SET updated_at = updated_at - 61000 WHERE id = $1', [left.record.id])
    await client.end()
    const taken = await second.claim(claimOf(2))
    assert.ok(taken.ok, 'a stale claim is taken over')
    assert.notEqual(taken.record.id, left.record.id)
  })

  it("gives back at open the claims its own INSTANCE_ID left (a process of that id died before signing), and no other instance's", async () => {
    await openEmpty()
    const dead = await openPostgresJournal({ url: database.url, instanceId: 'gw-1' })
    const mine = await dead.claim(claimOf(3))
    assert.ok(mine.ok)
    await dead.close() // as a kill -9 leaves it: the claim stays
    const other = await openPostgresJournal({ url: database.url, instanceId: 'gw-2', staleClaimMs: 60_000 })
    opened.push(other)
    assert.equal((await other.claim(claimOf(3))).ok, false, "another instance's open leaves the claim alone")
    const again = await openPostgresJournal({ url: database.url, instanceId: 'gw-1', staleClaimMs: 60_000 })
    opened.push(again)
    const taken = await other.claim(claimOf(3))
    assert.ok(taken.ok, 'claimed again at once, not after staleClaimMs')
    const signed = await again.claim(claimOf(4))
    assert.ok(signed.ok)
    await again.recordSigned(signed.record, signedTx(5))
    const restarted = await openPostgresJournal({ url: database.url, instanceId: 'gw-1', staleClaimMs: 60_000 })
    opened.push(restarted)
    assert.deepEqual(
      (await restarted.pending()).map((r) => r.transaction),
      [signedTx(5)],
      'a signed record is kept for reconciliation',
    )
  })

  it("asks a prepared statement again under a new name when another instance's migration changed the columns it returns (a rolling upgrade)", async () => {
    const own = await createTestDatabase('journal_upgrade')
    // One connection: every statement asked twice is prepared on it.
    const journal = await openPostgresJournal({ url: own.url, maxConnections: 1 })
    const other = new pg.Client({ connectionString: own.url })
    try {
      const key = (k: string) => ({
        scope: 'key:tenant01',
        key: k,
        fingerprint: k,
        expiresAt: new Date(Date.now() + 60_000),
      })
      for (const n of [1, 2]) {
        assert.ok((await journal.claim(claimOf(n))).ok)
        assert.ok((await journal.claim({ ...claimOf(10 + n), idempotencyKey: key(`k${n}`) })).ok)
        assert.equal((await journal.get(claimOf(n).intentHash, 'eip155:1'))?.state, 'claimed')
      }
      // Another instance, newer, adds a column: `SELECT *` and `RETURNING *` now return one more.
      // Inside a transaction first (a claim with its Idempotency-Key, asked again whole)...
      await other.connect()
      await other.query('ALTER TABLE executions ADD COLUMN added_by_a_later_version TEXT')
      assert.ok((await journal.claim({ ...claimOf(13), idempotencyKey: key('k3') })).ok)
      // ...then outside one (the statement asked again alone), after one more column.
      await other.query('ALTER TABLE executions ADD COLUMN added_by_the_next_version TEXT')
      assert.equal((await journal.get(claimOf(1).intentHash, 'eip155:1'))?.state, 'claimed')
      assert.ok((await journal.claim(claimOf(3))).ok)
      assert.equal((await journal.get(claimOf(13).intentHash, 'eip155:1'))?.state, 'claimed')
    } finally {
      await other.end().catch(() => {})
      await journal.close()
      await own.drop()
    }
  })

  it('answers StorageUnavailableError (503) when the database cannot be reached, and names DATABASE_URL (without its password) when it cannot open', async () => {
    const url = 'postgres://postgres:s3cret@127.0.0.1:9/none'
    await assert.rejects(
      openPostgresJournal({ url, connectTimeoutMs: 500 }),
      (err: unknown) =>
        err instanceof ConfigError && /DATABASE_URL/.test(err.message) && !err.message.includes('s3cret'),
    )
    const journal = await openPostgresJournal({ url: database.url })
    await journal.close()
    await assert.rejects(journal.claim(claimOf(5)), (err: unknown) => err instanceof StorageUnavailableError)
  })
})
