// The webhook outbox in the journal's PostgreSQL database, shared by a fleet: a due entry is
// leased with FOR UPDATE SKIP LOCKED, so each is delivered by one instance at a time.
import type pg from 'pg'
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

export function createPostgresWebhookOutbox({
  query,
  now = () => Date.now(),
}: {
  query(text: string, values: unknown[]): Promise<pg.QueryResult>
  now?: () => number
}): WebhookOutbox {
  const rows = async (text: string, values: unknown[]) => (await query(text, values)).rows as Row[]
  const leased = (r: Row) => ({
    eventId: r.event_id,
    endpoint: r.endpoint,
    payload: r.payload,
    attempts: Number(r.attempts),
  })
  return {
    async enqueue(entries) {
      if (entries.length === 0) return
      const t = now()
      const values: unknown[] = []
      const tuples = entries.map((e, i) => {
        values.push(e.eventId, e.endpoint, e.payload)
        return `($${3 * i + 1}, $${3 * i + 2}, $${3 * i + 3}, ${t}, ${t})`
      })
      await query(
        `INSERT INTO webhook_outbox (event_id, endpoint, payload, next_at, created_at) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`,
        values,
      )
    },
    async lease(endpoint, limit, lockMs) {
      const t = now()
      return (
        await rows(
          `UPDATE webhook_outbox SET locked_until = $1 WHERE (event_id, endpoint) IN (
             SELECT event_id, endpoint FROM webhook_outbox WHERE endpoint = $2 AND delivered_at IS NULL AND next_at <= $3 AND locked_until <= $3 ORDER BY next_at LIMIT $4 FOR UPDATE SKIP LOCKED)
           RETURNING *`,
          [t + lockMs, endpoint, t, limit],
        )
      ).map(leased)
    },
    async leaseOthers(endpoints, limit, lockMs) {
      const t = now()
      return (
        await rows(
          `UPDATE webhook_outbox SET locked_until = $1 WHERE (event_id, endpoint) IN (
             SELECT event_id, endpoint FROM webhook_outbox WHERE NOT (endpoint = ANY($2::text[])) AND delivered_at IS NULL AND next_at <= $3 AND locked_until <= $3 ORDER BY next_at LIMIT $4 FOR UPDATE SKIP LOCKED)
           RETURNING *`,
          [t + lockMs, endpoints, t, limit],
        )
      ).map(leased)
    },
    async release(e) {
      await query('UPDATE webhook_outbox SET locked_until = 0 WHERE event_id = $1 AND endpoint = $2', [
        e.eventId,
        e.endpoint,
      ])
    },
    async delivered(e) {
      await query(
        'UPDATE webhook_outbox SET delivered_at = $1, attempts = attempts + 1, locked_until = 0, last_error = NULL WHERE event_id = $2 AND endpoint = $3',
        [now(), e.eventId, e.endpoint],
      )
    },
    async failed(e, nextAt, error) {
      await query(
        'UPDATE webhook_outbox SET attempts = attempts + 1, next_at = $1, locked_until = 0, last_error = $2 WHERE event_id = $3 AND endpoint = $4',
        [nextAt ?? never, error.slice(0, 500), e.eventId, e.endpoint],
      )
    },
    async cursor() {
      const row = (await query('SELECT scanned_to FROM webhook_cursor WHERE id = 1', [])).rows[0] as
        | { scanned_to: number }
        | undefined
      return row === undefined ? undefined : Number(row.scanned_to)
    },
    async position() {
      const row = (await query('SELECT change, row_id FROM webhook_feed WHERE id = 1', [])).rows[0] as
        | { change: number; row_id: number }
        | undefined
      return row && { change: Number(row.change), id: Number(row.row_id) }
    },
    async advance(to) {
      await query(
        `INSERT INTO webhook_feed (id, change, row_id) VALUES (1, $1, $2) ON CONFLICT (id) DO UPDATE SET change = excluded.change, row_id = excluded.row_id
         WHERE (webhook_feed.change, webhook_feed.row_id) < (excluded.change, excluded.row_id)`,
        [to.change, to.id],
      )
    },
    async entriesOf(eventId) {
      return (await rows('SELECT * FROM webhook_outbox WHERE event_id = $1 ORDER BY endpoint', [eventId])).map((r) => ({
        endpoint: r.endpoint,
        attempts: Number(r.attempts),
        delivered: r.delivered_at !== null,
        lastError: r.last_error ?? undefined,
      }))
    },
  }
}
