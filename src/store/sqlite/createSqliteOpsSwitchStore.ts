// The console's switches on the journal's SQLite file (its table made by the journal's migrations:
// opsAuditDdl.ts). One gateway per file: the write is on the journal's own connection.
import type Database from 'better-sqlite3'
import type { OpsAction, OpsAuditEntry, OpsSwitchStore } from '../../ports/opsSwitchStore.ts'
import { never } from '../webhookOutboxDdl.ts'

type Row = { id: number; at: number; actor: string; action: OpsAction; target: string; detail: string | null }

export function createSqliteOpsSwitchStore({
  db,
  now = () => Date.now(),
}: {
  db: Database.Database
  now?: () => number
}): OpsSwitchStore {
  const insert = db.prepare<[number, string, string, string, string | null], Row>(
    'INSERT INTO ops_audit (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?) RETURNING *',
  )
  const recent = db.prepare<[number], Row>('SELECT * FROM ops_audit ORDER BY id DESC LIMIT ?')
  const switches = db.prepare<[], Row>(
    `SELECT a.* FROM ops_audit a JOIN (
       SELECT MAX(id) AS id FROM ops_audit WHERE action IN ('pause', 'resume', 'drain', 'undrain')
       GROUP BY CASE WHEN action IN ('pause', 'resume') THEN 'chain' ELSE 'instance' END, target
     ) latest ON latest.id = a.id ORDER BY a.id`,
  )
  const backlog = db.prepare<
    [number, number],
    { endpoint: string; pending: number; given_up: number; oldest: number | null; last_error: string | null }
  >(
    `SELECT endpoint, SUM(CASE WHEN next_at < ? THEN 1 ELSE 0 END) AS pending, SUM(CASE WHEN next_at >= ? THEN 1 ELSE 0 END) AS given_up, MIN(created_at) AS oldest,
            MAX(last_error) AS last_error
     FROM webhook_outbox WHERE delivered_at IS NULL GROUP BY endpoint ORDER BY endpoint`,
  )
  return {
    async webhookBacklog() {
      return backlog.all(never, never).map((r) => ({
        endpoint: r.endpoint,
        pending: r.pending,
        givenUp: r.given_up,
        oldestAt: r.oldest === null ? undefined : new Date(r.oldest),
        lastError: r.last_error ?? undefined,
      }))
    },
    // One gateway per file: no fleet to list.
    fleet: async () => [],
    async append({ actor, action, target, detail }) {
      return fromRow(insert.get(now(), actor, action, target, detail ?? null)!)
    },
    async switches() {
      return switches.all().map(fromRow)
    },
    async recent(limit) {
      return recent.all(limit).map(fromRow)
    },
  }
}

function fromRow(row: Row): OpsAuditEntry {
  return {
    id: row.id,
    at: new Date(row.at),
    actor: row.actor,
    action: row.action,
    target: row.target,
    detail: row.detail ?? undefined,
  }
}
