// The runtimes this gateway serves, named once. Configuration, the chain registry, createGateway and
// main.ts go through this list; a new runtime is a folder under chains/ exporting its module
// (config/runtimeModule.ts) and a line here (and its name in ports/chainId.ts). The configuration
// is read with the other lists the composition root hands in: the storage engines, the payment
// families and the signer backends, each reading its own settings.

import { evmModule } from './chains/evm/index.ts'
import { solanaModule } from './chains/solana/index.ts'
import { suiModule } from './chains/sui/index.ts'
import type { Env, GatewayConfig } from './config/gatewayConfig.ts'
import { loadConfig as readConfig } from './config/loadConfig.ts'
import type { RuntimeModule } from './config/runtimeModule.ts'
import { paymentFamilies } from './payments/mechanisms/paymentFamilies.ts'
import { keyBackends } from './signers/keyBackends.ts'
import { storageEngines } from './storageEngines.ts'

export const runtimes: readonly RuntimeModule[] = [evmModule, solanaModule, suiModule]

/** The gateway's configuration, read with every runtime's, storage engine's, payment family's and signer backend's own settings. */
export function loadConfig(env: Env): GatewayConfig {
  return readConfig(env, runtimes, storageEngines, paymentFamilies, keyBackends)
}
