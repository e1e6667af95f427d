// The console's switches in the fleet's PostgreSQL journal (its table made by the journal's
// migrations: opsAuditDdl.ts): every instance polls the switches in force from here.
import type { OpsAction, OpsAuditEntry, OpsSwitchStore } from '../../ports/opsSwitchStore.ts'
import { never } from '../webhookOutboxDdl.ts'

type Row = { id: number | string; at: Date; actor: string; action: OpsAction; target: string; detail: string | null }

export type PostgresQuery = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>

export function createPostgresOpsSwitchStore({ query }: { query: PostgresQuery }): OpsSwitchStore {
  const rows = async (text: string, values?: unknown[]) => ((await query(text, values)).rows as Row[]).map(fromRow)
  return {
    async append({ actor, action, target, detail }) {
      const [entry] = await rows(
        'INSERT INTO ops_audit (actor, action, target, detail) VALUES ($1, $2, $3, $4) RETURNING *',
        [actor, action, target, detail ?? null],
      )
      return entry!
    },
    switches: () =>
      rows(
        `SELECT * FROM (
           SELECT DISTINCT ON (CASE WHEN action IN ('pause', 'resume') THEN 'chain' ELSE 'instance' END, target) *
           FROM ops_audit WHERE action IN ('pause', 'resume', 'drain', 'undrain')
           ORDER BY CASE WHEN action IN ('pause', 'resume') THEN 'chain' ELSE 'instance' END, target, id DESC
         ) latest ORDER BY id`,
      ),
    async webhookBacklog() {
      const { rows: found } = await query(
        `SELECT endpoint, COUNT(*) FILTER (WHERE next_at < $1) AS pending, COUNT(*) FILTER (WHERE next_at >= $1) AS given_up, MIN(created_at) AS oldest, MAX(last_error) AS last_error
         FROM webhook_outbox WHERE delivered_at IS NULL GROUP BY endpoint ORDER BY endpoint`,
        [never],
      )
      return (
        found as Array<{
          endpoint: string
          pending: string | number
          given_up: string | number
          oldest: string | number | null
          last_error: string | null
        }>
      ).map((r) => ({
        endpoint: r.endpoint,
        pending: Number(r.pending),
        givenUp: Number(r.given_up),
        oldestAt: r.oldest === null ? undefined : new Date(Number(r.oldest)),
        lastError: r.last_error ?? undefined,
      }))
    },
    async fleet() {
      // Seats ('seat …' rows) are the lease store's bookkeeping, not keys.
      const { rows: found } = await query(
        `SELECT i.instance_id, i.expires_at, i.expires_at > now() AS live,
                COALESCE(json_agg(json_build_object('chainId', l.chain_id, 'relayer', l.relayer)) FILTER (WHERE l.relayer IS NOT NULL), '[]') AS keys
         FROM gateway_instances i
         LEFT JOIN relayer_leases l ON l.instance_id = i.instance_id AND l.expires_at > now() AND NOT starts_with(l.relayer, 'seat ')
         GROUP BY i.instance_id, i.expires_at ORDER BY i.instance_id`,
      )
      return (
        found as Array<{
          instance_id: string
          expires_at: Date
          live: boolean
          keys: Array<{ chainId: string; relayer: string }>
        }>
      ).map((r) => ({
        instanceId: r.instance_id,
        heartbeatExpiresAt: new Date(r.expires_at),
        live: r.live,
        keys: r.keys,
      }))
    },
    recent: (limit) => rows('SELECT * FROM ops_audit ORDER BY id DESC LIMIT $1', [limit]),
  }
}

function fromRow(row: Row): OpsAuditEntry {
  return {
    id: Number(row.id),
    at: new Date(row.at),
    actor: row.actor,
    action: row.action,
    target: row.target,
    detail: row.detail ?? undefined,
  }
}
