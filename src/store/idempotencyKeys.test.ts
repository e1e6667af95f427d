// The journal's Idempotency-Keys, the same on SQLite and PostgreSQL: recorded by a claim that
// succeeds and by nothing else, refused for another request (nothing claimed), given back with the
// claim, free again once expired and then pruned, and one winner when claims race with one key.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { claimOf, signedTx } from '../../test/support/journalContract.ts'
import { createTestDatabase, type TestDatabase } from '../../test/support/postgresDatabase.ts'
import { GatewayError } from '../errors/gatewayError.ts'
import type { IdempotencyKeyClaim, Journal } from '../ports/journal.ts'
import { Status } from '../status/statusCodes.ts'
import { openPostgresJournal } from './postgres/openPostgresJournal.ts'
import { openJournal } from './sqlite/openJournal.ts'

type Backend = { open(): Promise<Journal>; countKeys(journal: Journal): Promise<number> }

const keyOf = (key: string, fingerprint: string, ttlMs = 60_000): IdempotencyKeyClaim => ({
  scope: 'key:tenant01',
  key,
  fingerprint,
  expiresAt: new Date(Date.now() + ttlMs),
})
const isReused = (err: unknown) => err instanceof GatewayError && err.status === Status.IDEMPOTENCY_KEY_REUSED

function idempotencyContract(backend: () => Backend) {
  it('records the key with a claim that succeeds, and answers it while it is kept', async () => {
    const journal = await backend().open()
    const claim = await journal.claim({ ...claimOf(1), idempotencyKey: keyOf('k1', 'f1') })
    assert.ok(claim.ok)
    const recorded = await journal.idempotencyKey('key:tenant01', 'k1')
    assert.deepEqual(
      { ...recorded, createdAt: undefined, expiresAt: undefined },
      {
        scope: 'key:tenant01',
        key: 'k1',
        fingerprint: 'f1',
        chainId: 'eip155:1',
        intentHash: claimOf(1).intentHash,
        createdAt: undefined,
        expiresAt: undefined,
      },
    )
    assert.equal(await journal.idempotencyKey('key:tenant02', 'k1'), undefined, 'another scope')
  })

  it('refuses the key for another body or another intent with 0xA8, claiming nothing; the same request claims again under it', async () => {
    const journal = await backend().open()
    const first = await journal.claim({ ...claimOf(2), idempotencyKey: keyOf('k2', 'f2') })
    assert.ok(first.ok)
    await assert.rejects(journal.claim({ ...claimOf(3), idempotencyKey: keyOf('k2', 'f3') }), isReused)
    await assert.rejects(
      journal.claim({ ...claimOf(3), idempotencyKey: keyOf('k2', 'f2') }),
      isReused,
      'the same fingerprint for another intent (another chain header) is another request',
    )
    assert.deepEqual(await journal.attempts('eip155:1', claimOf(3).intentHash), [], 'nothing claimed')
    // The first attempt was sent and dropped: the intent may run again, under the same key, which stays the first attempt's.
    await journal.recordSigned(first.record, signedTx(1))
    await journal.settle(first.record, {
      state: 'dropped',
      status: 0xf0,
      blockNumber: undefined,
      gasUsed: undefined,
      returnData: undefined,
      detail: 'dropped',
    })
    const second = await journal.claim({ ...claimOf(2), idempotencyKey: keyOf('k2', 'f2') })
    assert.ok(second.ok)
    await journal.release(second.record)
    assert.ok(await journal.idempotencyKey('key:tenant01', 'k2'), 'kept by the attempt that sent a transaction')
  })

  it('records nothing for a claim that fails, and gives the key back with the claim', async () => {
    const journal = await backend().open()
    const held = await journal.claim(claimOf(4))
    assert.ok(held.ok)
    const refused = await journal.claim({ ...claimOf(4), idempotencyKey: keyOf('k4', 'f4') })
    assert.equal(refused.ok, false)
    assert.equal(await journal.idempotencyKey('key:tenant01', 'k4'), undefined)
    const claim = await journal.claim({ ...claimOf(5), idempotencyKey: keyOf('k5', 'f5') })
    assert.ok(claim.ok)
    await journal.release(claim.record)
    assert.equal(await journal.idempotencyKey('key:tenant01', 'k5'), undefined)
    // Free again: another body under it claims.
    assert.ok((await journal.claim({ ...claimOf(6), idempotencyKey: keyOf('k5', 'f6') })).ok)
  })

  it('frees a key once expired, for any body, and prunes it', async () => {
    const b = backend()
    const journal = await b.open()
    assert.ok((await journal.claim({ ...claimOf(7), idempotencyKey: keyOf('k7', 'f7', 30) })).ok)
    assert.ok((await journal.claim({ ...claimOf(8), idempotencyKey: keyOf('k8', 'f8') })).ok)
    await new Promise((resolve) => setTimeout(resolve, 60))
    assert.equal(await journal.idempotencyKey('key:tenant01', 'k7'), undefined)
    // f9's key must still be kept when read back right after: 1 s, not 30 ms, as a read can wait
    // that long for a core when the test files run side by side on a busy machine.
    assert.ok(
      (await journal.claim({ ...claimOf(9), idempotencyKey: keyOf('k7', 'f9', 1_000) })).ok,
      'an expired key is free again',
    )
    assert.equal((await journal.idempotencyKey('key:tenant01', 'k7'))?.fingerprint, 'f9')
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    // Retention at any cutoff removes expired keys only (nothing else is old enough here).
    assert.deepEqual(await journal.prune(new Date(Date.now() - 86_400_000)), {
      executions: 0,
      payments: 0,
      webhooks: 0,
    })
    assert.equal(await b.countKeys(journal), 1, 'k8 is kept')
  })

  it('lets one of several claims racing with one key and different intents win', async () => {
    const journal = await backend().open()
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        journal.claim({ ...claimOf(20 + i), idempotencyKey: keyOf('race', `f${i}`) }),
      ),
    )
    const won = results.filter((r) => r.status === 'fulfilled' && r.value.ok)
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)))
    assert.ok(results.every((r) => r.status === 'fulfilled' || isReused(r.reason)))
    const claimed = await Promise.all(
      Array.from({ length: 8 }, (_, i) => journal.attempts('eip155:1', claimOf(20 + i).intentHash)),
    )
    assert.equal(claimed.flat().length, 1, 'the losers claimed nothing')
  })
}

describe('Idempotency-Keys in the journal: SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idempotency-keys-'))
  let n = 0
  const paths = new Map<Journal, string>()
  after(() => rmSync(dir, { recursive: true, force: true }))
  idempotencyContract(() => ({
    async open() {
      const path = join(dir, `journal-${n++}.sqlite`)
      const journal = openJournal({ path, synchronous: 'normal' })
      paths.set(journal, path)
      return journal
    },
    async countKeys(journal) {
      // The journal holds its file exclusively: counted once it is closed.
      journal.close()
      const db = new Database(paths.get(journal)!, { readonly: true })
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM idempotency_keys').get() as { n: number }).n
      } finally {
        db.close()
      }
    },
  }))
})

describe('Idempotency-Keys in the journal: PostgreSQL', () => {
  let database: TestDatabase
  const opened: Journal[] = []
  before(async () => {
    database = await createTestDatabase('idemkeys')
  })
  after(async () => {
    for (const journal of opened) await journal.close()
    await database?.drop()
  })
  idempotencyContract(() => ({
    async open() {
      const journal = await openPostgresJournal({ url: database.url })
      opened.push(journal)
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      await client.query('TRUNCATE executions, idempotency_keys RESTART IDENTITY')
      await client.end()
      return journal
    },
    async countKeys() {
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      try {
        return Number((await client.query('SELECT COUNT(*) AS n FROM idempotency_keys')).rows[0].n)
      } finally {
        await client.end()
      }
    },
  }))
})
