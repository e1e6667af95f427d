import assert from 'node:assert/strict'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { StorageUnavailableError } from '../../errors/storageUnavailableError.ts'
import { createWriteQueue } from './writeQueue.ts'

function world() {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)')
  const put = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
  const keys = () => (db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)
  return { db, put, keys, queue: createWriteQueue(db) }
}

test('writes asked in one turn commit together; a failing atomic write (one statement) is undone alone, the others stay', async () => {
  const { put, keys, queue } = world()
  const results = await Promise.allSettled([
    queue.write(() => put.run('a', 1), { atomic: true }),
    queue.write(() => put.run('a', 2), { atomic: true }), // the key is taken: this statement fails
    queue.write(() => put.run('b', 3), { atomic: true }),
  ])
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  )
  assert.deepEqual(keys(), ['a', 'b'])
})

test('a write of several statements that fails half-way is rolled back whole, in its own savepoint', async () => {
  const { put, keys, queue } = world()
  const results = await Promise.allSettled([
    queue.write(() => {
      put.run('c', 1)
      put.run('c', 2) // fails after the first statement wrote
    }),
    queue.write(() => put.run('d', 1), { atomic: true }),
  ])
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'fulfilled'],
  )
  assert.deepEqual(keys(), ['d'], "the failed write's first statement is undone")
})

test('a full database file answers StorageUnavailableError (503 with Retry-After), not a bare SQLite error; what was committed stays', async () => {
  const { db, put, keys, queue } = world()
  await queue.write(() => put.run('kept', 1), { atomic: true })
  // The file may not grow past its pages now: the next rows that need a page fail with SQLITE_FULL.
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`)
  const big = 'x'.repeat(64 * 1024)
  const bigPut = db.prepare<[string, string]>('INSERT INTO t (k, v) VALUES (?, ?)')
  const results = await Promise.allSettled([
    queue.write(() => bigPut.run('big', big), { atomic: true }),
    queue.write(() => bigPut.run('big2', big)),
  ])
  for (const r of results) {
    assert.equal(r.status, 'rejected')
    const reason = (r as PromiseRejectedResult).reason
    assert.ok(reason instanceof StorageUnavailableError, String(reason))
    assert.equal(reason.status, 0x40)
    assert.equal(reason.headers['retry-after'], '5')
    assert.match(reason.shortMessage, /SQLITE_FULL/)
  }
  assert.deepEqual(keys(), ['kept'])
})
