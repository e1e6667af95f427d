import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import {
  claimed,
  claimOf,
  hash,
  intentOf,
  journalContract,
  mined,
  relayer,
  signedTx,
} from '../../../test/support/journalContract.ts'
import { writeV1Journal } from '../../../test/support/v1Journal.ts'
import { ConfigError } from '../../errors/configError.ts'
import type { SignedExecution } from '../../ports/chainAdapter.ts'
import { journalSchemaVersion, openJournal, otherInstancesSql } from './openJournal.ts'

const dir = mkdtempSync(join(tmpdir(), 'journal-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('journal contract: SQLite', () => journalContract(async () => openJournal({ path: ':memory:' })))

describe('openJournal', () => {
  it('keeps signed records across a reopen and gives back claims that never signed', async () => {
    const path = join(dir, 'reopen', 'journal.sqlite')
    const first = openJournal({ path })
    const signed = await claimed(first, claimOf(1))
    await claimed(first, claimOf(2))
    await first.recordSigned(signed, signedTx(4))
    first.close()

    const second = openJournal({ path })
    const [pending, ...rest] = await second.pending()
    assert.equal(rest.length, 0)
    assert.equal(pending?.intentHash, hash(1))
    assert.deepEqual(pending?.transaction, signedTx(4))
    assert.deepEqual(pending?.intent, { ...intentOf(1n), sender: '0xAbC0000000000000000000000000000000000001' })
    assert.equal(await second.get(hash(2)), undefined, 'the unsigned claim was released')
    assert.ok((await second.claim(claimOf(2))).ok)
    second.close()
    assert.equal(
      readdirSync(join(dir, 'reopen')).filter((f) => f.endsWith('.bak')).length,
      0,
      'a current file is not copied',
    )
  })

  it('writes concurrent signed transactions with shared fsyncs (group commit): each resolves, and all are there after a reopen', async () => {
    const path = join(dir, 'group', 'journal.sqlite')
    const first = openJournal({ path })
    const records = await Promise.all(Array.from({ length: 20 }, (_, i) => claimed(first, claimOf(100 + i))))
    await Promise.all(records.map((r, i) => first.recordSigned(r, signedTx(i))))
    assert.ok(records.every((r) => r.state === 'pending'))
    first.close()
    const second = openJournal({ path })
    assert.deepEqual(
      (await second.pending()).map((r) => r.transaction),
      Array.from({ length: 20 }, (_, i) => signedTx(i)),
    )
    second.close()
  })

  it('round-trips a Sui record: base58 digest, base64 bytes, the gas coin in its details', async () => {
    const path = join(dir, 'sui', 'journal.sqlite')
    const digest = '5BzvQ3xQeXWbKNGrL8bKAG4C4GRb9iLw7ZLpVkZcRoxM'
    const tx: SignedExecution = {
      id: digest,
      bytes: Buffer.from('sui transaction bytes and signature').toString('base64'),
      relayer: `0x${'ab'.repeat(32)}`,
      details: { gasCoin: { objectId: `0x${'ce'.repeat(32)}`, version: '18446744073709551615' } },
    }
    const first = openJournal({ path })
    const record = await claimed(first, { ...claimOf(1, 1n, 'sui:localnet') })
    await first.recordSigned(record, tx)
    first.close()

    const second = openJournal({ path })
    const [pending] = await second.pending({ chainId: 'sui:localnet', relayer: tx.relayer })
    assert.deepEqual(pending?.transaction, tx)
    assert.equal(pending?.attempt, 1)
    assert.ok(await second.settle(pending!, { ...mined, returnData: undefined }))
    const settled = await second.get(hash(1), 'sui:localnet')
    assert.equal(settled?.state, 'mined')
    assert.equal(settled?.transaction?.id, digest)
    second.close()
  })

  it('upgrades a journal written by the first gateway (schema 1) at start-up, keeping every record, and copies it first', async () => {
    const path = join(dir, 'v1', 'journal.sqlite')
    mkdirSync(join(dir, 'v1'))
    const v1Intent = (n: bigint) => JSON.stringify(intentOf(n), (_, v) => (typeof v === 'bigint' ? v.toString() : v))
    const row = {
      chain_id: 'eip155:1',
      sender: '0xabc0000000000000000000000000000000000001',
      relayer,
      created_at: 1_700_000_000_000,
      updated_at: 1_700_000_000_500,
    }
    const raw = (n: number) => `0x02f8${n.toString(16).padStart(4, '0')}`
    writeV1Journal(
      path,
      [
        // Intent 1: a revert, then an executed second try.
        {
          ...row,
          id: 1,
          intent_hash: hash(1),
          intent_nonce: '1',
          intent: v1Intent(1n),
          state: 'reverted',
          status: 0x50,
          tx_nonce: 3,
          transaction_hash: hash(1003),
          raw_transaction: raw(3),
          block_number: '40',
          gas_used: '50000',
          detail: 'denied',
        },
        {
          ...row,
          id: 2,
          intent_hash: hash(1),
          intent_nonce: '1',
          intent: v1Intent(1n),
          state: 'mined',
          status: 0x11,
          tx_nonce: 4,
          transaction_hash: hash(1004),
          raw_transaction: raw(4),
          block_number: '41',
          gas_used: '60000',
          return_data: '0x',
        },
        // Two pending ones, claimed in the other order than their nonces.
        {
          ...row,
          id: 4,
          intent_hash: hash(2),
          intent_nonce: '2',
          intent: v1Intent(2n),
          state: 'pending',
          status: 0xf3,
          tx_nonce: 6,
          transaction_hash: hash(1006),
          raw_transaction: raw(6),
        },
        {
          ...row,
          id: 5,
          intent_hash: hash(3),
          intent_nonce: '3',
          intent: v1Intent(3n),
          state: 'pending',
          status: 0xf3,
          tx_nonce: 5,
          transaction_hash: hash(1005),
          raw_transaction: raw(5),
        },
        // A claim a crash left behind, and a released one (id 7, deleted) above every kept id.
        {
          ...row,
          id: 6,
          intent_hash: hash(4),
          intent_nonce: '4',
          intent: v1Intent(4n),
          state: 'claimed',
          status: 0xf3,
          relayer: null,
        },
        {
          ...row,
          id: 7,
          intent_hash: hash(5),
          intent_nonce: '5',
          intent: v1Intent(5n),
          state: 'claimed',
          status: 0xf3,
          relayer: null,
        },
      ],
      { deleteIds: [7] },
    )

    const journal = openJournal({ path })
    const evm = (n: number) => ({
      id: hash(1000 + n),
      bytes: Buffer.from(raw(n).slice(2), 'hex').toString('base64'),
      relayer,
      details: { txNonce: n },
    })
    const mined = await journal.get(hash(1), 'eip155:1')
    assert.deepEqual(
      { ...mined, createdAt: mined?.createdAt.getTime(), updatedAt: mined?.updatedAt.getTime() },
      {
        id: 2,
        chainId: 'eip155:1',
        intentHash: hash(1),
        attempt: 2,
        intent: intentOf(1n),
        state: 'mined',
        status: 0x11,
        transaction: evm(4),
        blockNumber: 41n,
        // Schema 3: what was reported final stays final; the chain instance is unknown.
        blockHash: undefined,
        final: true,
        chainInstance: undefined,
        gasUsed: 60000n,
        returnData: '0x',
        detail: undefined,
        createdAt: 1_700_000_000_000,
        updatedAt: 1_700_000_000_500,
      },
    )
    // The pending ones, to be reconciled in nonce order; the left-over claim given back.
    const pending = await journal.pending({ chainId: 'eip155:1', relayer })
    assert.deepEqual(
      pending.map((r) => [r.id, r.attempt, r.transaction]),
      [
        [5, 1, evm(5)],
        [4, 1, evm(6)],
      ],
    )
    assert.equal(await journal.get(hash(4)), undefined)
    assert.equal(await journal.pendingCount(), 2)
    // Exactly-once holds on the upgraded records, and new ids go above every id ever used.
    assert.ok(!(await journal.claim(claimOf(1))).ok, 'the executed intent is held')
    assert.ok(!(await journal.claim(claimOf(9, 2n))).ok, "the pending intent's (sender, nonce) is held")
    const next = await claimed(journal, claimOf(6))
    assert.equal(next.id, 8)
    await journal.recordSigned(next, signedTx(7))
    assert.deepEqual(
      (await journal.pending({ chainId: 'eip155:1', relayer })).map((r) => r.transaction!.details.txNonce),
      [5, 6, 7],
    )
    journal.close()

    // Upgraded once: the version is recorded, the copy of the old file kept and still a version-1 file.
    const db = new Database(path, { readonly: true })
    assert.equal(db.pragma('user_version', { simple: true }), journalSchemaVersion)
    db.close()
    const copies = readdirSync(join(dir, 'v1')).filter((f) => /^journal\.sqlite\.v0-\d+\.bak$/.test(f))
    assert.equal(copies.length, 1)
    const copy = new Database(join(dir, 'v1', copies[0]!), { readonly: true })
    assert.equal(
      (copy.prepare('SELECT COUNT(*) AS n FROM executions WHERE raw_transaction IS NOT NULL').get() as { n: number }).n,
      4,
    )
    copy.close()
    const again = openJournal({ path })
    assert.equal((await again.pending()).length, 3)
    again.close()
    assert.equal(readdirSync(join(dir, 'v1')).filter((f) => f.endsWith('.bak')).length, 1, 'no second copy')
  })

  it("numbers changes in commit order without triggers (schema 9): a schema-8 file's feed goes on after its counter, and a number is never given twice", async () => {
    const path = join(dir, 'changes', 'journal.sqlite')
    const before = openJournal({ path, synchronous: 'normal' })
    const kept = await claimed(before, claimOf(1))
    await before.recordSigned(kept, signedTx(1))
    const given = await claimed(before, claimOf(2))
    before.close()
    // Schema 8 numbered changes with two triggers; put them back, number once more through them,
    // and give a claim back (its number, the highest, leaves the table).
    const db = new Database(path)
    db.exec(`
CREATE TRIGGER executions_changed_insert AFTER INSERT ON executions BEGIN
  UPDATE journal_changes SET seq = seq + 1 WHERE id = 1;
  UPDATE executions SET change_seq = (SELECT seq FROM journal_changes WHERE id = 1) WHERE id = NEW.id;
END;
CREATE TRIGGER executions_changed_update AFTER UPDATE ON executions WHEN NEW.change_seq IS OLD.change_seq BEGIN
  UPDATE journal_changes SET seq = seq + 1 WHERE id = 1;
  UPDATE executions SET change_seq = (SELECT seq FROM journal_changes WHERE id = 1) WHERE id = NEW.id;
END;`)
    db.prepare(`UPDATE executions SET detail = 'through the trigger' WHERE id = ?`).run(given.id)
    const counted = (db.prepare('SELECT seq FROM journal_changes WHERE id = 1').get() as { seq: number }).seq
    db.prepare('DELETE FROM executions WHERE id = ?').run(given.id)
    db.pragma('user_version = 8')
    db.close()

    const journal = openJournal({ path, synchronous: 'normal' })
    try {
      const start = await journal.changePositionAt(0)
      const { records: old, position } = await journal.changesAfter(start, 10)
      assert.deepEqual(
        old.map((r) => r.intentHash),
        [hash(1)],
      )
      await journal.settle(kept, mined)
      const third = await claimed(journal, claimOf(3))
      const { records: next } = await journal.changesAfter(position, 10)
      assert.deepEqual(
        next.map((r) => [r.intentHash, r.state]),
        [
          [hash(1), 'mined'],
          [hash(3), 'claimed'],
        ],
        'in commit order, after the old feed',
      )
      journal.close()
      const file = new Database(path, { readonly: true })
      const rows = file.prepare('SELECT id, change_seq FROM executions ORDER BY change_seq').all() as {
        id: number
        change_seq: number
      }[]
      assert.ok(
        rows.at(-2)!.change_seq > counted,
        "no number the counter gave (the given-back claim's included) is given again",
      )
      assert.deepEqual(rows.at(-1), { id: third.id, change_seq: rows.at(-2)!.change_seq + 1 })
      assert.equal(
        (file.prepare('SELECT seq FROM journal_changes WHERE id = 1').get() as { seq: number }).seq,
        rows.at(-1)!.change_seq,
        'the counter is saved with the writes',
      )
      assert.equal(
        (file.prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'trigger'`).get() as { n: number }).n,
        0,
      )
      file.close()
    } finally {
      journal.close()
    }
  })

  it('looks for records of another chain instance in two ranges of an index, not through the history (schema 10)', async () => {
    const path = join(dir, 'instances', 'journal.sqlite')
    await openJournal({ path }).close()
    const db = new Database(path, { readonly: true })
    const plan = db
      .prepare<[{ 1: string; 2: string }], { detail: string }>(`EXPLAIN QUERY PLAN ${otherInstancesSql}`)
      .all({ 1: 'eip155:1', 2: 'genesis-a' })
      .map((r) => r.detail)
    db.close()
    assert.ok(
      plan.some((d) => d.includes('executions_instance (chain_id=? AND chain_instance<?)')) &&
        plan.some((d) => d.includes('executions_instance (chain_id=? AND chain_instance>?)')),
      plan.join('\n'),
    )
    assert.ok(!plan.some((d) => d.startsWith('SCAN executions')), plan.join('\n'))
  })

  it('refuses a journal written by a newer gateway, leaving it untouched', () => {
    const path = join(dir, 'newer.sqlite')
    const db = new Database(path)
    db.pragma(`user_version = ${journalSchemaVersion + 1}`)
    db.close()
    assert.throws(
      () => openJournal({ path }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.includes(
          `JOURNAL_PATH: cannot open the execution journal at ${path}: it has journal schema version ${journalSchemaVersion + 1}, newer than this gateway's ${journalSchemaVersion}`,
        ),
    )
    const after = new Database(path, { readonly: true })
    assert.equal(after.pragma('user_version', { simple: true }), journalSchemaVersion + 1)
    after.close()
  })

  it('takes a consistent backup while open, which opens as a journal of its own', async () => {
    const path = join(dir, 'live.sqlite')
    const journal = openJournal({ path })
    const c = await claimed(journal, claimOf(1))
    await journal.recordSigned(c, signedTx(3))
    const copy = join(dir, 'backups', 'copy.sqlite')
    await journal.backup(copy)
    journal.close()
    const restored = openJournal({ path: copy })
    assert.deepEqual((await restored.pending())[0]?.transaction, signedTx(3))
    restored.close()
  })

  it('refuses a second gateway on the same file, naming JOURNAL_PATH', () => {
    const path = join(dir, 'locked.sqlite')
    const first = openJournal({ path })
    assert.throws(
      () => openJournal({ path }),
      (err: unknown) => err instanceof ConfigError && /JOURNAL_PATH: .* in use by another gateway/.test(err.message),
    )
    first.close()
    openJournal({ path }).close()
    assert.ok(existsSync(path))
  })

  it('names JOURNAL_PATH when the file cannot be opened', () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    assert.throws(
      () => openJournal({ path: join(file, 'journal.sqlite') }),
      (err: unknown) => err instanceof ConfigError && /JOURNAL_PATH/.test(err.message),
    )
  })
})
