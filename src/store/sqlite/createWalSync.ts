// The fsync behind the journal's group commit. The signed-transaction writes commit into the WAL
// without an fsync on the event loop (synchronous = NORMAL), then wait for an fsync of the WAL
// file run on libuv's threads: what SQLite's synchronous = FULL does in WAL mode, but one fsync
// covers every write committed before it started, and the gateway goes on serving while the disk
// works. (Writes committed while one fsync runs wait for the next.)
//
// The WAL file is opened once, at the first fsync, and kept: SQLite keeps that file (the same
// inode; a checkpoint only rewinds or truncates it) for as long as the database is open, and an
// open, an fstat and a close around every fsync cost the event loop ~30 µs per execute.
import { closeSync, fsync, openSync } from 'node:fs'
import type Database from 'better-sqlite3'

export type WalSync = {
  /** Resolves once every write committed before the call is on disk. */
  durable(): Promise<void>
  /** Lets the file go, after an fsync under way (call once the database is closed). */
  close(): void
}

export function createWalSync({ db, path }: { db: Database.Database; path: string }): WalSync {
  const walPath = `${path}-wal`
  let fd: number | undefined
  let syncing: Promise<void> | undefined
  let nextSync: Promise<void> | undefined
  let closed = false

  const syncWal = (): Promise<void> => {
    syncing = new Promise<void>((resolve, reject) => {
      if (fd === undefined) {
        try {
          fd = openSync(walPath, 'r')
        } catch (err) {
          // Closed since: the closing checkpoint moved the WAL into the synced database file.
          if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !db.open) return resolve()
          return reject(err)
        }
      }
      fsync(fd, (err) => (err ? reject(err) : resolve()))
    }).finally(() => {
      syncing = undefined
      if (closed) letGo()
    })
    return syncing
  }

  const letGo = () => {
    if (fd === undefined) return
    closeSync(fd)
    fd = undefined
  }

  return {
    durable() {
      if (closed) return Promise.resolve()
      if (!syncing) return syncWal()
      nextSync ??= syncing
        .catch(() => {})
        .then(() => {
          nextSync = undefined
          return closed ? undefined : syncWal()
        })
      return nextSync
    },
    close() {
      closed = true
      // An fsync under way keeps its descriptor until it is done.
      if (!syncing) letGo()
    },
  }
}
