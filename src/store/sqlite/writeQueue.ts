// Group commit of the journal's writes on the event loop: every write asked for during one turn
// of the loop runs in one SQLite transaction, committed once at the next `setImmediate`. Each
// commit appends every page it changed to the WAL (the table's leaf and one leaf per index, 4 KiB
// each), so 100 executes' claims or settlements committed together write a few pages where
// one commit each wrote hundreds, and the checkpoints that copy them back come that much less
// often. A caller's promise settles only after the commit: what it is told is written is written
// as before (and recordSigned still waits for its fsync), so a kill -9 loses only writes nobody
// was told about yet, as a kill a moment earlier would have.
import type Database from 'better-sqlite3'
import { StorageUnavailableError } from '../../errors/storageUnavailableError.ts'

/**
 * SQLite's answers that say the file cannot take the write now (disk full, an I/O error, a
 * read-only file): the journal is unavailable (503 with Retry-After), not the gateway broken (500).
 * Nothing of the failed write was kept, and what was committed before stays readable.
 */
function toWriteError(err: unknown): unknown {
  const code = (err as { code?: unknown } | undefined)?.code
  if (typeof code === 'string' && /^SQLITE_(FULL|IOERR|READONLY)/.test(code)) {
    return new StorageUnavailableError(`The journal database cannot be written (${code})`, { cause: err })
  }
  return err
}

type Write = { run: () => unknown; atomic: boolean; resolve: (value: unknown) => void; reject: (err: unknown) => void }

export type WriteQueue = {
  /**
   * Runs `run` inside the next group transaction, in the order asked; its result once committed.
   * `atomic`: its one statement is the whole write, or it throws before writing anything (SQLite
   * undoes a failed statement alone), so it needs no savepoint of its own: two statements fewer.
   */
  write<T>(run: () => T, options?: { atomic?: boolean }): Promise<T>
  /** Commits what is queued now (before close). */
  flush(): void
}

/** `beforeCommit`: run last in every group transaction (the journal saves its change counter there). */
export function createWriteQueue(
  db: Database.Database,
  { beforeCommit }: { beforeCommit?: () => void } = {},
): WriteQueue {
  let queue: Write[] = []
  let scheduled: NodeJS.Immediate | undefined
  // Each write in a savepoint of its own: one that fails is rolled back alone and rejects only its caller.
  const alone = db.transaction((run: () => unknown) => run())
  let unwritable: StorageUnavailableError | undefined
  const all = db.transaction((batch: Write[]) => {
    const results = batch.map((w): PromiseSettledResult<unknown> => {
      try {
        return { status: 'fulfilled', value: w.atomic ? w.run() : alone(w.run) }
      } catch (reason) {
        const mapped = toWriteError(reason)
        // SQLite rolls the whole transaction back on a full disk or an I/O error: the commit then
        // fails with "no transaction is active", and every write of the batch is answered this.
        if (mapped instanceof StorageUnavailableError) unwritable ??= mapped
        return { status: 'rejected', reason: mapped }
      }
    })
    beforeCommit?.()
    return results
  })
  const flush = () => {
    if (scheduled) clearImmediate(scheduled)
    scheduled = undefined
    const batch = queue
    queue = []
    if (batch.length === 0) return
    let results: PromiseSettledResult<unknown>[]
    unwritable = undefined
    try {
      // IMMEDIATE: the checks and the writes of every claim happen under one write lock.
      results = all.immediate(batch)
    } catch (err) {
      // The commit itself failed (disk full, I/O error): nothing of the batch was written.
      const reason = unwritable ?? toWriteError(err)
      for (const w of batch) w.reject(reason)
      return
    }
    results.forEach((r, i) => (r.status === 'fulfilled' ? batch[i]!.resolve(r.value) : batch[i]!.reject(r.reason)))
  }
  return {
    write: <T>(run: () => T, { atomic = false }: { atomic?: boolean } = {}) =>
      new Promise<T>((resolve, reject) => {
        // The queue holds writes of every result type; each resolve gets what its own run returned.
        queue.push({ run, atomic, resolve: resolve as (value: unknown) => void, reject })
        scheduled ??= setImmediate(flush)
      }),
    flush,
  }
}
