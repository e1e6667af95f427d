// The shared engine's own setting: DATABASE_URL, the journal (and x402 payments) in PostgreSQL.
import type { Env } from '../../config/gatewayConfig.ts'

export type PostgresSettings = {
  /** DATABASE_URL. */
  url: string
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
  return { url }
}

function hasScheme(url: string, schemes: string[]): boolean {
  try {
    return schemes.includes(new URL(url).protocol)
  } catch {
    return false
  }
}
