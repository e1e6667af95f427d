// The webhook outbox on the journal's SQLite file (one gateway per file: leases need no locking).
import type Database from 'better-sqlite3'
import type { WebhookOutbox } from '../../ports/webhookOutbox.ts'
import { never, outboxDdl } from '../webhookOutboxDdl.ts'

type Row = { event_id: string; endpoint: string; payload: string; attempts: number; delivered_at: number | null; last_error: string | null }

export function createSqliteWebhookOutbox({ db, now = () => Date.now() }: { db: Database.Database; now?: () => number }): WebhookOutbox {
  db.exec(outboxDdl)
  // One gateway per file: a lease left by a process that died is nobody's (as claims are given back at open).
  db.prepare('UPDATE webhook_outbox SET locked_until = 0 WHERE locked_until > 0').run()
  const insert = db.prepare('INSERT INTO webhook_outbox (event_id, endpoint, payload, next_at, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const due = db.prepare<[number, number, number], Row>('SELECT * FROM webhook_outbox WHERE delivered_at IS NULL AND next_at <= ? AND locked_until <= ? ORDER BY next_at LIMIT ?')
  const lock = db.prepare('UPDATE webhook_outbox SET locked_until = ? WHERE event_id = ? AND endpoint = ?')
  const done = db.prepare('UPDATE webhook_outbox SET delivered_at = ?, attempts = attempts + 1, locked_until = 0, last_error = NULL WHERE event_id = ? AND endpoint = ?')
  const retry = db.prepare('UPDATE webhook_outbox SET attempts = attempts + 1, next_at = ?, locked_until = 0, last_error = ? WHERE event_id = ? AND endpoint = ?')
  const getCursor = db.prepare<[], { scanned_to: number }>('SELECT scanned_to FROM webhook_cursor WHERE id = 1')
  const setCursor = db.prepare('INSERT INTO webhook_cursor (id, scanned_to) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET scanned_to = MAX(scanned_to, excluded.scanned_to)')
  const ofEvent = db.prepare<[string], Row>('SELECT * FROM webhook_outbox WHERE event_id = ? ORDER BY endpoint')
  const leaseDue = db.transaction((limit: number, lockMs: number) => {
    const t = now()
    const rows = due.all(t, t, limit)
    for (const r of rows) lock.run(t + lockMs, r.event_id, r.endpoint)
    return rows
  })
  return {
    async enqueue(entries) {
      const t = now()
      db.transaction(() => {
        for (const e of entries) insert.run(e.eventId, e.endpoint, e.payload, t, t)
      })()
    },
    async lease(limit, lockMs) {
      return leaseDue.immediate(limit, lockMs).map((r) => ({ eventId: r.event_id, endpoint: r.endpoint, payload: r.payload, attempts: r.attempts }))
    },
    async delivered(e) {
      done.run(now(), e.eventId, e.endpoint)
    },
    async failed(e, nextAt, error) {
      retry.run(nextAt ?? never, error.slice(0, 500), e.eventId, e.endpoint)
    },
    cursor: async () => getCursor.get()?.scanned_to,
    async advance(to) {
      setCursor.run(to)
    },
    entriesOf: async (eventId) => ofEvent.all(eventId).map((r) => ({ endpoint: r.endpoint, attempts: r.attempts, delivered: r.delivered_at !== null, lastError: r.last_error ?? undefined })),
  }
}
