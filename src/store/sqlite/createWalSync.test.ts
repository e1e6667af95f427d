import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { createWalSync } from './createWalSync.ts'

/** The descriptors this process holds on `file`. */
const descriptorsOn = (file: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(file)
    } catch {
      return false // the directory's own descriptor, gone by now
    }
  }).length

function openWal() {
  const path = join(mkdtempSync(join(tmpdir(), 'wal-sync-')), 'journal.sqlite')
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec('CREATE TABLE t (v INTEGER)')
  return { path, db, insert: db.prepare('INSERT INTO t (v) VALUES (?)') }
}

test('every fsync of the WAL goes through one descriptor, opened at the first and let go at close', async () => {
  const { path, db, insert } = openWal()
  const sync = createWalSync({ db, path })
  assert.equal(descriptorsOn(`${path}-wal`), 1, 'SQLite holds the WAL open itself')
  for (let i = 0; i < 50; i++) {
    insert.run(i)
    await Promise.all([sync.durable(), sync.durable()])
  }
  assert.equal(descriptorsOn(`${path}-wal`), 2, "SQLite's and the sync's, however many fsyncs ran")
  db.pragma('wal_checkpoint(TRUNCATE)')
  insert.run(50)
  await sync.durable() // the same file after a checkpoint truncated it
  db.close()
  sync.close()
  assert.equal(descriptorsOn(`${path}-wal`), 0)
  await sync.durable() // after close: nothing left to sync
})

test('a close while an fsync runs lets the descriptor go once that fsync is done', async () => {
  const { path, db, insert } = openWal()
  const sync = createWalSync({ db, path })
  insert.run(1)
  const running = sync.durable()
  const next = sync.durable() // waits for the next fsync, which close cancels
  sync.close()
  await Promise.all([running, next])
  db.close()
  assert.equal(descriptorsOn(`${path}-wal`), 0)
})
