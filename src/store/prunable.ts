// Retention's rule of what may go, as SQL shared by the SQLite and PostgreSQL journals.

/**
 * The executions retention may delete, updated before the cutoff (the first parameter): settled
 * for good (final, or dropped), and of an intent none of whose attempts is still open (so that no
 * open attempt loses the attempts it replaced). The same SQL on SQLite and PostgreSQL.
 */
export function prunable(table: string, cutoff = '?'): string {
  return `updated_at < ${cutoff} AND (state = 'dropped' OR (state IN ('mined', 'reverted') AND final = 1))
    AND NOT EXISTS (SELECT 1 FROM ${table} unsettled WHERE unsettled.chain_id = ${table}.chain_id AND unsettled.intent_hash = ${table}.intent_hash
                    AND (unsettled.state IN ('claimed', 'pending') OR (unsettled.state IN ('mined', 'reverted') AND unsettled.final = 0)))`
}

/** Webhook outbox entries delivered, or given up, before the cutoff (both parameters). */
export function prunableWebhooks(delivered: string, created: string): string {
  return `(delivered_at IS NOT NULL AND delivered_at < ${delivered}) OR (delivered_at IS NULL AND next_at = ${Number.MAX_SAFE_INTEGER} AND created_at < ${created})`
}
