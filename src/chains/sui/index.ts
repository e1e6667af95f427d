// The Sui runtime as the gateway composes it (config/runtimeModule.ts): sui chains by network
// name, the relayer key SUI_RELAYER_PRIVATE_KEY (in a fleet, held by one instance at a time through
// the relayer leases). No devnet: Sui is tested against a stand-in (docs/sui.md).
import type { RuntimeModule } from '../../config/runtimeModule.ts'
import { readSuiRelayerKey } from './suiRelayerKey.ts'
import { suiRuntime } from './suiRuntime.ts'

const suiNetworks = ['mainnet', 'testnet', 'devnet', 'localnet']

export const suiModule: RuntimeModule = {
  chainType: 'sui',
  name: 'Sui',
  namespace: 'sui',
  runtime: suiRuntime,
  checkContractAddress(value) {
    const problem = suiRuntime.checkAddress(value)
    return problem && `"${value.slice(0, 70)}" ${problem}`
  },
  checkReference: (reference) => (suiNetworks.includes(reference) ? undefined : `a Sui chain id is one of ${suiNetworks.map((n) => `sui:${n}`).join(', ')}`),
  discoversEndpoints: false,
  readSettings: (env, { problems }) => ({ suiRelayerPrivateKey: readSuiRelayerKey(env, problems) }),
  hasRelayer: (config) => config.suiRelayerPrivateKey !== undefined,
  async createChains(chains, { settings, logger, rpcRecorder, leases, journal }) {
    // Sui's SDK (~20 MB) is loaded only when a Sui chain is configured.
    const { createSuiAdapter } = await import('./createSuiAdapter.ts')
    const adapters = chains.map((chain) =>
      createSuiAdapter({
        chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrls[0]!, packageId: chain.executor, hubId: chain.registry },
        relayerSecretKey: settings.suiRelayerPrivateKey,
        rpcTimeoutMs: settings.rpcTimeoutMs,
        logger,
        rpcRecorder,
        leases,
        journal,
      }),
    )
    return { adapters }
  },
}
