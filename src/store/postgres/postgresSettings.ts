// The shared engine's own settings: DATABASE_URL, the journal (and x402 payments) in PostgreSQL,
// and DATABASE_PREPARED_STATEMENTS.
import type { Env } from '../../config/gatewayConfig.ts'
import { readBoolean } from '../../config/readBoolean.ts'

export type PostgresSettings = {
  /** DATABASE_URL. */
  url: string
  /**
   * DATABASE_PREPARED_STATEMENTS (default true): the journal's repeated statements are prepared on
   * each connection; false behind a pooler that cannot keep them (PgBouncer in transaction mode
   * before 1.21).
   */
  preparedStatements?: boolean | undefined
}

/** Undefined: DATABASE_URL is unset, and the journal is not in PostgreSQL. */
export function readPostgresSettings(env: Env, { problems }: { problems: string[] }): PostgresSettings | undefined {
  const url = env.DATABASE_URL?.trim() || undefined
  if (url === undefined) return undefined
  if (!hasScheme(url, ['postgres:', 'postgresql:']))
    problems.push('DATABASE_URL: must be a PostgreSQL URL, postgres://user:password@host:5432/database')
  // The embedded engine's file would be silently ignored: say so.
  if (env.JOURNAL_PATH?.trim())
    problems.push('JOURNAL_PATH: not used with DATABASE_URL (the journal is in PostgreSQL); set one of them')
  const preparedStatements = readBoolean(env, 'DATABASE_PREPARED_STATEMENTS', problems, true)
  return { url, preparedStatements }
}

function hasScheme(url: string, schemes: string[]): boolean {
  try {
    return schemes.includes(new URL(url).protocol)
  } catch {
    return false
  }
}
