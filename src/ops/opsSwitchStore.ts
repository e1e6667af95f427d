// Where the console's switches are kept: an append-only audit in the journal (who, when, what),
// written BEFORE a switch takes effect, from which every instance reads the switches' state. The
// same for SQLite (store/sqlite/createSqliteOpsSwitchStore.ts) and PostgreSQL
// (store/postgres/createPostgresOpsSwitchStore.ts).

/** What an operator did. `pause`/`resume` name a chain, `drain`/`undrain` an instance, `retry` a transaction. */
export type OpsAction = 'pause' | 'resume' | 'drain' | 'undrain' | 'retry'

export type OpsAuditEntry = {
  /** Increasing: the order the switches were written in (the order they take effect in). */
  id: number
  at: Date
  /** Who: `ops:<key id>` for an OPS_API_KEYS key, `oauth:<iss>#<sub>` for a token. */
  actor: string
  action: OpsAction
  /** The chain (CAIP-2), instance id or transaction the action names. */
  target: string
  /** The operator's reason, or what the gateway did (a retry's new transaction). */
  detail: string | undefined
}

export type OpsSwitchStore = {
  /** Appends one entry; durable before it resolves. */
  append(entry: { actor: string; action: OpsAction; target: string; detail?: string | undefined }): Promise<OpsAuditEntry>
  /**
   * The switches in force: for each chain its latest pause or resume, for each instance its latest
   * drain or undrain (what every instance polls; the table is small, switches are rare).
   */
  switches(): Promise<OpsAuditEntry[]>
  /** The last `limit` entries, newest first. */
  recent(limit: number): Promise<OpsAuditEntry[]>
}

export const opsActions: readonly OpsAction[] = ['pause', 'resume', 'drain', 'undrain', 'retry']
