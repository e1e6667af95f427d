// The embedded engine, the default: the journal in one SQLite file (JOURNAL_PATH) that one gateway
// process owns (it holds every relayer key alone: no leases).
import type { StorageEngine } from '../../config/storageEngine.ts'
import { openJournal } from './openJournal.ts'

export const sqliteEngine: StorageEngine = {
  chosen: () => true,
  async open(config) {
    return { journal: openJournal(config.journal), leases: undefined }
  },
}
