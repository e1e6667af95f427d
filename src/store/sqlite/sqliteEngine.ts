// The embedded engine, the default: the journal in one SQLite file (JOURNAL_PATH, sqliteSettings.ts)
// that one gateway process owns (it holds every relayer key alone: no leases).
import type { StorageEngine } from '../../config/storageEngine.ts'
import { openJournal } from './openJournal.ts'
import { readSqliteSettings, type SqliteSettings } from './sqliteSettings.ts'

export const sqliteEngine: StorageEngine = {
  name: 'sqlite',
  shared: false,
  readSettings: (env, { devnet, problems }) => readSqliteSettings(env, { devnet, problems }),
  async open(config) {
    return { journal: openJournal(config.storageOptions.sqlite as SqliteSettings), leases: undefined }
  },
}
