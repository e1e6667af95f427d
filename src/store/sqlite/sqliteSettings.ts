// The embedded engine's own settings: JOURNAL_PATH (an SQLite file, or `:memory:`: the devnet's
// default, its chain dies with it) and JOURNAL_SYNCHRONOUS (full or normal).
import { resolve } from 'node:path'
import type { Env } from '../../config/gatewayConfig.ts'

export type SqliteSettings = { path: string; synchronous: 'full' | 'normal' }

export function readSqliteSettings(
  env: Env,
  { devnet, problems }: { devnet: boolean; problems: string[] },
): SqliteSettings {
  const path = env.JOURNAL_PATH?.trim() || (devnet ? ':memory:' : resolve('data', 'journal.sqlite'))
  const synchronous = env.JOURNAL_SYNCHRONOUS?.trim().toLowerCase() || 'full'
  if (synchronous !== 'full' && synchronous !== 'normal')
    problems.push(`JOURNAL_SYNCHRONOUS: "${synchronous.slice(0, 20)}" is not full or normal`)
  return { path: path === ':memory:' ? path : resolve(path), synchronous: synchronous as 'full' | 'normal' }
}
