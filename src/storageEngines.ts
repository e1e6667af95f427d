// The storage engines, named once: the one place that picks where the gateway keeps its state.
// A new engine is a room of store/ exporting a StorageEngine (config/storageEngine.ts: it reads its
// own settings) and a line here. The first engine the configuration chooses (its settings read)
// opens; the last, SQLite, is the default.
import type { GatewayConfig } from './config/gatewayConfig.ts'
import type { StorageEngine, Store } from './config/storageEngine.ts'
import { postgresEngine } from './store/postgres/postgresEngine.ts'
import { sqliteEngine } from './store/sqlite/sqliteEngine.ts'

export const storageEngines: readonly StorageEngine[] = [postgresEngine, sqliteEngine]

export async function openStore(config: GatewayConfig): Promise<Store> {
  const engine = storageEngines.find((e) => config.storageOptions[e.name] !== undefined) ?? storageEngines.at(-1)!
  return engine.open(config)
}
