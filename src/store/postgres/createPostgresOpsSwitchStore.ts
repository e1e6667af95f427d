// The console's switches in the fleet's PostgreSQL journal (its table made by the journal's
// migrations: opsAuditDdl.ts): every instance polls the switches in force from here.
import type { OpsAction, OpsAuditEntry, OpsSwitchStore } from '../../ops/opsSwitchStore.ts'

type Row = { id: number | string; at: Date; actor: string; action: OpsAction; target: string; detail: string | null }

export type PostgresQuery = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>

export function createPostgresOpsSwitchStore({ query }: { query: PostgresQuery }): OpsSwitchStore {
  const rows = async (text: string, values?: unknown[]) => ((await query(text, values)).rows as Row[]).map(fromRow)
  return {
    async append({ actor, action, target, detail }) {
      const [entry] = await rows('INSERT INTO ops_audit (actor, action, target, detail) VALUES ($1, $2, $3, $4) RETURNING *', [actor, action, target, detail ?? null])
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
    recent: (limit) => rows('SELECT * FROM ops_audit ORDER BY id DESC LIMIT $1', [limit]),
  }
}

function fromRow(row: Row): OpsAuditEntry {
  return { id: Number(row.id), at: new Date(row.at), actor: row.actor, action: row.action, target: row.target, detail: row.detail ?? undefined }
}
