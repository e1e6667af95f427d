// The one counter of the in-process facilitator's EVM nonces in this process: its settlements
// (createEvmFacilitatorScheme.ts) take them, the re-check after a reorg forgets them
// (createEvmChainReads.ts).
import { createSettlerNonces } from './createSettlerNonces.ts'

export const settlerNonces = createSettlerNonces()
