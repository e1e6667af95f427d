// What a storage engine is to the composition root (src/storageEngines.ts lists them): a room of
// store/ that opens the journal and, when several instances share it, the relayer leases.
import type { Journal } from '../ports/journal.ts'
import type { RelayerLeases } from '../ports/relayerLeases.ts'
import type { GatewayConfig } from './gatewayConfig.ts'

export type Store = {
  journal: Journal
  /** Present when the engine is shared by several instances: who holds each relayer key. */
  leases: (RelayerLeases & { close(): Promise<void> }) | undefined
}

export type StorageEngine = {
  /** Whether the configuration asks for this engine (its own setting is present). */
  chosen(config: GatewayConfig): boolean
  /** Opens the journal (and, when shared, the leases); throws when the store cannot be opened. */
  open(config: GatewayConfig): Promise<Store>
}
