// The shared engine: the journal in PostgreSQL (DATABASE_URL, postgresSettings.ts), used by several
// instances at once, which lease the relayer keys among them. Its driver is loaded only when it is chosen.
import type { StorageEngine } from '../../config/storageEngine.ts'
import { type PostgresSettings, readPostgresSettings } from './postgresSettings.ts'

export const postgresEngine: StorageEngine = {
  name: 'postgres',
  shared: true,
  readSettings: (env, { problems }) => readPostgresSettings(env, { problems }),
  async open(config) {
    const { url, preparedStatements } = config.storageOptions.postgres as PostgresSettings
    const { openPostgresJournal } = await import('./openPostgresJournal.ts')
    const journal = await openPostgresJournal({ url, instanceId: config.storage.instanceId, preparedStatements })
    try {
      const { createPostgresRelayerLeases } = await import('./createPostgresRelayerLeases.ts')
      const leases = createPostgresRelayerLeases({
        url,
        instanceId: config.storage.instanceId,
        ttlMs: config.storage.relayerLeaseTtlMs,
      })
      return { journal, leases }
    } catch (err) {
      await journal.close()
      throw err
    }
  },
}
