// Where the console's switches are kept: an append-only audit in the journal (who, when, what),
// written BEFORE a switch takes effect, from which every instance reads the switches' state. The
// same for SQLite (store/sqlite/createSqliteOpsSwitchStore.ts) and PostgreSQL
// (store/postgres/createPostgresOpsSwitchStore.ts). The console's port: ops/ reads it, store/ implements it.

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
  append(entry: {
    actor: string
    action: OpsAction
    target: string
    detail?: string | undefined
  }): Promise<OpsAuditEntry>
  /**
   * The switches in force: for each chain its latest pause or resume, for each instance its latest
   * drain or undrain (what every instance polls; the table is small, switches are rare).
   */
  switches(): Promise<OpsAuditEntry[]>
  /** The last `limit` entries, newest first. */
  recent(limit: number): Promise<OpsAuditEntry[]>
  /** What the console shows that only the store knows: the webhook outbox's backlog per endpoint. */
  webhookBacklog(): Promise<WebhookBacklog[]>
  /** The instances sharing the journal (PostgreSQL), their heartbeats and the relayer keys each holds; a SQLite journal has one instance: none listed. */
  fleet(): Promise<FleetInstance[]>
}

/** Undelivered events of one endpoint (given-up ones apart): how many, and since when. */
export type WebhookBacklog = {
  endpoint: string
  pending: number
  givenUp: number
  oldestAt: Date | undefined
  lastError: string | undefined
}

export type FleetInstance = {
  instanceId: string
  heartbeatExpiresAt: Date
  live: boolean
  keys: Array<{ chainId: string; relayer: string }>
}

export const opsActions: readonly OpsAction[] = ['pause', 'resume', 'drain', 'undrain', 'retry']
