// The payments table before settlements' blocks were recorded (SQLite journal schema 7, PostgreSQL
// 10), upgraded by migration 8 / 11: every payment kept, settlements written before counted final
// (never re-checked), and the new columns and the `reorged` state working on both engines.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import type { Hex } from 'viem'
import type { NewReservation, PaymentLedger } from '../../src/ports/paymentLedger.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { journalSchemaVersion, openJournal } from '../../src/store/sqlite/openJournal.ts'
import { createTestDatabase } from '../support/postgresDatabase.ts'
import { undoLaterPostgresMigrations } from '../support/undoLaterPostgresMigrations.ts'

const reservation = (n: number): NewReservation => ({
  network: 'eip155:31337',
  asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  payer: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  nonce: `0x${n.toString(16).padStart(64, '0')}` as Hex,
  route: 'execute',
  chainId: 'eip155:31337',
  intentHash: `0x${(1000 + n).toString(16).padStart(64, '0')}` as Hex,
  amount: '10000',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  paymentId: undefined,
  payloadHash: `0x${'ab'.repeat(32)}` as Hex,
  validBefore: 2_000_000_000n,
})
const tx = (n: number) => `0x${n.toString(16).padStart(64, 'c')}`
const block = { number: 42n, hash: `0x${'b1'.repeat(32)}` as Hex }

/** What the upgraded ledger must do: old settlements final, new ones followed, `reorged` accepted. */
async function checkUpgraded(ledger: PaymentLedger, oldIds: number[]) {
  for (const id of oldIds) {
    const [payment] = await ledger.forIntent('eip155:31337', reservation(id).intentHash)
    assert.ok(payment, 'the payment was kept')
    assert.equal(payment.state, id === 1 ? 'consumed' : 'settled')
    assert.equal(payment.transaction, tx(id))
    assert.equal(payment.settlementFinal, true, 'a settlement written before counts as final')
    assert.equal(payment.settlementBlock, undefined)
  }
  assert.deepEqual(await ledger.unfinalSettlements('eip155'), [], 'nothing written before is re-checked')
  const fresh = await ledger.reserve(reservation(3))
  assert.equal(fresh.kind, 'reserved')
  const id = fresh.payment.id
  await ledger.keepSettlementPayload(id, '{"payload":1}')
  await ledger.markSettled(id, tx(3))
  await ledger.recordSettlementBlock(id, tx(3), block)
  const [unfinal] = await ledger.unfinalSettlements('eip155')
  assert.equal(unfinal?.id, id)
  assert.deepEqual(unfinal?.settlementBlock, block)
  assert.equal(await ledger.settlementPayloadOf(id), '{"payload":1}')
  assert.equal(await ledger.markReorged(id, 'reorged: test'), true)
  assert.equal(await ledger.markReorged(id, 'reorged: again'), false, 'compare-and-set: once')
  const [reorged] = await ledger.forIntent('eip155:31337', reservation(3).intentHash)
  assert.deepEqual([reorged?.state, reorged?.reason], ['reorged', 'reorged: test'])
  assert.equal(
    (await ledger.creditFor({ route: 'execute', chainId: 'eip155:31337', intentHash: reservation(3).intentHash }))?.id,
    undefined,
    'a reorged payment is no credit',
  )
  assert.equal(
    (await ledger.reserve(reservation(3))).kind,
    'authorization-used',
    'its authorization pays for nothing else',
  )
}

describe('payments table upgrade: settlement blocks and `reorged`', () => {
  const dir = mkdtempSync(join(tmpdir(), 'settlement-reorg-migration-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('SQLite: a schema-7 journal with payments is upgraded to 8', async () => {
    const path = join(dir, 'v7.sqlite')
    openJournal({ path, synchronous: 'normal' }).close()
    const db = new Database(path)
    // The payments table as schema 7's ledger wrote it.
    db.exec(`DROP TABLE x402_payments;
CREATE TABLE x402_payments (
  id INTEGER PRIMARY KEY, network TEXT NOT NULL, asset TEXT NOT NULL, payer TEXT NOT NULL, nonce TEXT NOT NULL, amount TEXT NOT NULL, pay_to TEXT NOT NULL,
  payment_id TEXT UNIQUE, valid_before TEXT, payload_hash TEXT NOT NULL, route TEXT NOT NULL, chain_id TEXT NOT NULL, intent_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'consumed', 'released')), transaction_hash TEXT, reason TEXT, answer TEXT, pending_request TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (network, asset, payer, nonce));`)
    const insert = db.prepare(
      `INSERT INTO x402_payments (network, asset, payer, nonce, amount, pay_to, payload_hash, route, chain_id, intent_hash, state, transaction_hash, created_at, updated_at)
       VALUES (@network, lower(@asset), lower(@payer), lower(@nonce), @amount, @payTo, @payloadHash, @route, @chainId, @intentHash, @state, @tx, 1, 1)`,
    )
    for (const [n, state] of [
      [1, 'consumed'],
      [2, 'settled'],
    ] as const) {
      insert.run({ ...reservation(n), state, tx: tx(n) })
    }
    assert.throws(
      () => db.exec(`UPDATE x402_payments SET state = 'reorged' WHERE id = 2`),
      /CHECK constraint failed/,
      'schema 7 has no reorged state',
    )
    db.pragma('user_version = 7')
    db.close()

    const journal = openJournal({ path, synchronous: 'normal' })
    try {
      await checkUpgraded(journal.payments, [1, 2])
    } finally {
      journal.close()
    }
    const upgraded = new Database(path, { readonly: true })
    assert.equal(upgraded.pragma('user_version', { simple: true }), journalSchemaVersion)
    upgraded.close()
  })

  it('PostgreSQL: a schema-10 journal with payments is upgraded to 11', async () => {
    const database = await createTestDatabase('settlereorgmig')
    try {
      const before = await openPostgresJournal({ url: database.url })
      for (const n of [1, 2]) {
        const reserved = await before.payments.reserve(reservation(n))
        assert.equal(reserved.kind, 'reserved')
        await before.payments.markSettled(reserved.payment.id, tx(n))
        if (n === 1) await before.payments.markConsumed(reserved.payment.id)
      }
      await before.close()
      const admin = new pg.Client({ connectionString: database.url })
      await admin.connect()
      await undoLaterPostgresMigrations(admin, 11)
      await admin.query('DELETE FROM journal_migrations WHERE version >= 11')
      await assert.rejects(
        admin.query(`UPDATE x402_payments SET state = 'reorged' WHERE id = 2`),
        /x402_payments_state_check/,
        'schema 10 has no reorged state',
      )
      await admin.end()

      const journal = await openPostgresJournal({ url: database.url })
      try {
        await checkUpgraded(journal.payments, [1, 2])
      } finally {
        await journal.close()
      }
    } finally {
      await database.drop()
    }
  })
})
