// The EVM chains' adapters: endpoints for every chain (configured or discovered), the relayer keys
// (in the process, in KMS, in a PKCS#11 token) shared by every chain, one adapter per chain.
import type { ChainConfig } from '../../config/gatewayConfig.ts'
import type { RuntimeChains, RuntimeContext } from '../../config/runtimeModule.ts'
import type { EvmKeySource } from '../../ports/keySource.ts'
import { openEvmRelayerKeys } from '../../signers/openEvmRelayerKeys.ts'
import { createEvmAdapter } from './createEvmAdapter.ts'
import { createChainList } from './discovery/createChainList.ts'
import { resolveChains } from './discovery/resolveChains.ts'
import { type EvmOptions, readEvmOptions } from './evmOptions.ts'

export async function createEvmChains(
  configs: ChainConfig[],
  { settings, logger, rpcRecorder, journal, leases }: RuntimeContext,
): Promise<RuntimeChains> {
  // Its own settings, as its module read them (the defaults where a configuration carries none).
  const options = (settings.runtimeOptions?.evm as EvmOptions | undefined) ?? readEvmOptions({}, [])
  const needsDiscovery = configs.some((c) => c.rpcUrls.length === 0)
  const chainList = needsDiscovery ? createChainList({ ...options.chainList, logger }) : undefined
  const chains = await resolveChains({ chains: configs, chainList, production: settings.production, logger })
  // Its keys (config: GatewayConfig.keys.evm): those in the process first, then those held outside it.
  const sources = (settings.keys.evm ?? []) as readonly EvmKeySource[]
  const relayerKeys = sources.flatMap((k) => (k.backend === 'local' ? [k.secret] : []))
  for (const chain of chains) {
    if (chain.readOnly && relayerKeys.length > 0) {
      logger.warn(
        { chainId: chain.chainId },
        `${chain.chainId} is read-only: it has no RPC_URLS, and discovered endpoints are not trusted to execute in production (validate only; set RPC_URLS to execute)`,
      )
    }
  }
  // Keys that never enter the process (KMS, a PKCS#11 token), opened through signers/: their addresses are read at start-up.
  const remoteAccounts = await openEvmRelayerKeys(sources.filter((k) => k.backend !== 'local'))
  if (remoteAccounts.length > 0)
    logger.info(
      { relayers: remoteAccounts.map((a) => ({ address: a.address, signer: a.backend })) },
      'relayer keys held outside the process',
    )
  const adapters = chains.map((chain) =>
    createEvmAdapter({
      chain,
      // A read-only chain gets no relayer: nothing is ever signed or sent on it.
      relayerPrivateKey: undefined,
      relayerPrivateKeys: chain.readOnly ? [] : relayerKeys,
      relayerAccounts: chain.readOnly ? [] : remoteAccounts,
      leases,
      rpcTimeoutMs: settings.rpc.timeoutMs,
      pollingIntervalMs: settings.rpc.pollMs,
      logger,
      maxGasPerExecution:
        settings.execution.maxGasPerExecution === undefined ? undefined : BigInt(settings.execution.maxGasPerExecution),
      rpcRecorder,
      confirmations: settings.execution.confirmations,
      maxFeePerGas: options.maxFeePerGas === undefined ? undefined : BigInt(options.maxFeePerGas),
      foldReads: options.multicall,
      cacheAnswers: options.validateCache,
      simulationGatherMs: options.simulationGatherMs,
      // Transactions of another instance of the chain (reset) hold no nonce on this one.
      unsettledTransactions: async (relayer, chainInstance) =>
        (await journal.pending({ chainId: chain.chainId, relayer }))
          .filter(
            (r) => chainInstance === undefined || r.chainInstance === undefined || r.chainInstance === chainInstance,
          )
          .flatMap((r) => r.transaction ?? []),
    }),
  )
  return { adapters }
}
