// What a storage engine is to the composition root (src/storageEngines.ts lists them): a room of
// store/ that reads its own settings, opens the journal and, when several instances share it, the
// relayer leases.
import type { Journal } from '../ports/journal.ts'
import type { RelayerLeases } from '../ports/relayerLeases.ts'
import type { Env, GatewayConfig } from './gatewayConfig.ts'

export type Store = {
  journal: Journal
  /** Present when the engine is shared by several instances: who holds each relayer key. */
  leases: (RelayerLeases & { close(): Promise<void> }) | undefined
}

export type StorageEngine = {
  /** Its key in GatewayConfig.storageOptions (`postgres`, `sqlite`). */
  name: string
  /** Whether several gateway processes may open it at once (then they lease the relayer keys; WORKERS > 1 needs one). */
  shared: boolean
  /**
   * Reads the engine's own settings, in a shape of its own (kept in GatewayConfig.storageOptions
   * under its name, handed back to its `open`); undefined: the configuration does not choose it.
   * Each problem is pushed onto `problems`. `devnet`: nothing is configured (the embedded devnet runs).
   */
  readSettings(env: Env, context: { production: boolean; devnet: boolean; problems: string[] }): unknown
  /** Opens the journal (and, when shared, the leases); throws when the store cannot be opened. */
  open(config: GatewayConfig): Promise<Store>
}
