// The EVM runtime as the gateway composes it (config/runtimeModule.ts): eip155 chains, their
// relayer keys (in the process, in KMS or in a PKCS#11 token), its own settings (evmOptions.ts:
// the chain list its endpoints are found in, Multicall3, the validate cache, the simulation
// gathering, the re-pricing ceiling), and anvil as the devnet.
import { isAddress } from 'viem'
import type { RuntimeModule } from '../../config/runtimeModule.ts'
import { evmExamples } from './evmExamples.ts'
import { readEvmOptions } from './evmOptions.ts'
import { evmRuntime } from './evmRuntime.ts'
import { readRelayerKeys } from './evmSettings.ts'

export const evmModule: RuntimeModule = {
  chainType: 'evm',
  name: 'EVM',
  namespace: 'eip155',
  runtime: evmRuntime,
  checkContractAddress(value) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(value))
      return `"${value.slice(0, 50)}" is not an address (0x followed by 40 hex digits)`
    if (!isAddress(value, { strict: true })) return `"${value}" has mixed case but is not a valid EIP-55 checksum`
    return undefined
  },
  discoversEndpoints: true,
  sendsBundles: true,
  readSettings: (env, { production, problems }) => ({
    keys: readRelayerKeys(env, production, problems),
    options: readEvmOptions(env, problems),
  }),
  // RELAYER_KMS_KEY_IDS, RELAYER_PKCS11_KEY_LABELS: joined to the pool after the keys in the process.
  heldKeys: { prefix: 'RELAYER', many: true },
  async createChains(chains, context) {
    // viem's clients, discovery and the signers are loaded only when an EVM chain is configured.
    const { createEvmChains } = await import('./createEvmChains.ts')
    return createEvmChains(chains, context)
  },
  examples: evmExamples,
  devnet: {
    name: 'anvil',
    async start() {
      const { startEvmDevnet } = await import('./devnet/startEvmDevnet.ts')
      return startEvmDevnet()
    },
  },
}
