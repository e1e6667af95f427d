// The Sui runtime as the gateway composes it (config/runtimeModule.ts): sui chains by network
// name, the relayer key SUI_RELAYER_PRIVATE_KEY or one held outside the process
// (config/signersConfig.ts) (in a fleet, held by one instance at a time through
// the relayer leases). No devnet: Sui is tested against a stand-in (docs/sui.md).
import type { RuntimeModule } from '../../config/runtimeModule.ts'
import type { KeySource } from '../../ports/keySource.ts'
import { heldFirst } from '../heldFirst.ts'
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
  checkReference: (reference) =>
    suiNetworks.includes(reference)
      ? undefined
      : `a Sui chain id is one of ${suiNetworks.map((n) => `sui:${n}`).join(', ')}`,
  discoversEndpoints: false,
  examples: { chainId: 'sui:mainnet' },
  readSettings(env, { problems }) {
    const key = readSuiRelayerKey(env, problems)
    return { keys: key ? [{ backend: 'local', secret: key, setting: 'SUI_RELAYER_PRIVATE_KEY' }] : [] }
  },
  // SUI_RELAYER_PKCS11_KEY_LABEL or SUI_RELAYER_KMS_KEY_ID: one key, instead of SUI_RELAYER_PRIVATE_KEY.
  heldKeys: { prefix: 'SUI_RELAYER', many: false },
  async createChains(chains, { settings, logger, rpcRecorder, leases, journal }) {
    // Sui's SDK (~20 MB) is loaded only when a Sui chain is configured.
    const { createSuiAdapter } = await import('./createSuiAdapter.ts')
    // A relayer key outside the process (SUI_RELAYER_PKCS11_KEY_LABEL, SUI_RELAYER_KMS_KEY_ID): its public key read once, shared by every chain.
    // The key in the process is the `suiprivkey1…` string; one held outside it an Ed25519KeySource.
    const source = heldFirst(settings.keys.sui) as KeySource<string> | undefined
    const relayerSigner =
      source && source.backend !== 'local' && chains.length > 0
        ? await (await import('../../signers/createEd25519Signer.ts')).createEd25519Signer(source)
        : undefined
    const adapters = chains.map((chain) =>
      createSuiAdapter({
        chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrls[0]!, packageId: chain.executor, hubId: chain.registry },
        relayerSecretKey: source?.backend === 'local' ? source.secret : undefined,
        relayerSigner,
        rpcTimeoutMs: settings.rpc.timeoutMs,
        logger,
        rpcRecorder,
        leases,
        journal,
      }),
    )
    return { adapters }
  },
}
