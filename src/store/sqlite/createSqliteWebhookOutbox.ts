// The webhook outbox on the journal's SQLite file (one gateway per file: leases need no locking).
// Its tables are made by the journal's migrations (openJournal.ts).
import type Database from 'better-sqlite3'
import type { WebhookOutbox } from '../../ports/webhookOutbox.ts'
import { never } from '../webhookOutboxDdl.ts'

type Row = {
  event_id: string
  endpoint: string
  payload: string
  attempts: number
  delivered_at: number | null
  last_error: string | null
}

export function createSqliteWebhookOutbox({
  db,
  now = () => Date.now(),
}: {
  db: Database.Database
  now?: () => number
}): WebhookOutbox {
  // One gateway per file: a lease left by a process that died is nobody's (as claims are given back at open).
  db.prepare('UPDATE webhook_outbox SET locked_until = 0 WHERE locked_until > 0').run()
  const insert = db.prepare(
    'INSERT INTO webhook_outbox (event_id, endpoint, payload, next_at, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  )
  const due = db.prepare<[string, number, number, number], Row>(
    'SELECT * FROM webhook_outbox WHERE endpoint = ? AND delivered_at IS NULL AND next_at <= ? AND locked_until <= ? ORDER BY next_at LIMIT ?',
  )
  const lock = db.prepare('UPDATE webhook_outbox SET locked_until = ? WHERE event_id = ? AND endpoint = ?')
  const unlock = db.prepare('UPDATE webhook_outbox SET locked_until = 0 WHERE event_id = ? AND endpoint = ?')
  const done = db.prepare(
    'UPDATE webhook_outbox SET delivered_at = ?, attempts = attempts + 1, locked_until = 0, last_error = NULL WHERE event_id = ? AND endpoint = ?',
  )
  const retry = db.prepare(
    'UPDATE webhook_outbox SET attempts = attempts + 1, next_at = ?, locked_until = 0, last_error = ? WHERE event_id = ? AND endpoint = ?',
  )
  const getCursor = db.prepare<[], { scanned_to: number }>('SELECT scanned_to FROM webhook_cursor WHERE id = 1')
  const getPosition = db.prepare<[], { change: number; row_id: number }>(
    'SELECT change, row_id FROM webhook_feed WHERE id = 1',
  )
  const setPosition = db.prepare(
    'INSERT INTO webhook_feed (id, change, row_id) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET change = excluded.change, row_id = excluded.row_id WHERE (change, row_id) < (excluded.change, excluded.row_id)',
  )
  const ofEvent = db.prepare<[string], Row>('SELECT * FROM webhook_outbox WHERE event_id = ? ORDER BY endpoint')
  const lockAll = (rows: Row[], until: number) => {
    for (const r of rows) lock.run(until, r.event_id, r.endpoint)
    return rows
  }
  const leaseDue = db.transaction((endpoint: string, limit: number, lockMs: number) => {
    const t = now()
    return lockAll(due.all(endpoint, t, t, limit), t + lockMs)
  })
  const leaseOthers = db.transaction((endpoints: readonly string[], limit: number, lockMs: number) => {
    const t = now()
    const others = db
      .prepare<unknown[], Row>(
        `SELECT * FROM webhook_outbox WHERE delivered_at IS NULL AND next_at <= ? AND locked_until <= ? AND endpoint NOT IN (${endpoints.map(() => '?').join(', ') || "''"}) ORDER BY next_at LIMIT ?`,
      )
      .all(t, t, ...endpoints, limit)
    return lockAll(others, t + lockMs)
  })
  const leased = (r: Row) => ({ eventId: r.event_id, endpoint: r.endpoint, payload: r.payload, attempts: r.attempts })
  return {
    async enqueue(entries) {
      const t = now()
      db.transaction(() => {
        for (const e of entries) insert.run(e.eventId, e.endpoint, e.payload, t, t)
      })()
    },
    async lease(endpoint, limit, lockMs) {
      return leaseDue.immediate(endpoint, limit, lockMs).map(leased)
    },
    async leaseOthers(endpoints, limit, lockMs) {
      return leaseOthers.immediate(endpoints, limit, lockMs).map(leased)
    },
    async release(e) {
      unlock.run(e.eventId, e.endpoint)
    },
    async delivered(e) {
      done.run(now(), e.eventId, e.endpoint)
    },
    async failed(e, nextAt, error) {
      retry.run(nextAt ?? never, error.slice(0, 500), e.eventId, e.endpoint)
    },
    cursor: async () => getCursor.get()?.scanned_to,
    async position() {
      const row = getPosition.get()
      return row && { change: row.change, id: row.row_id }
    },
    async advance(to) {
      setPosition.run(to.change, to.id)
    },
    entriesOf: async (eventId) =>
      ofEvent.all(eventId).map((r) => ({
        endpoint: r.endpoint,
        attempts: r.attempts,
        delivered: r.delivered_at !== null,
        lastError: r.last_error ?? undefined,
      })),
  }
}
