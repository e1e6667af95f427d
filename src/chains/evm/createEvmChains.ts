// The EVM chains' adapters: endpoints for every chain (configured or discovered), the relayer keys
// (in the process, in KMS, in a PKCS#11 token) shared by every chain, one adapter per chain.
import type { LocalAccount } from 'viem'
import type { ChainConfig } from '../../config/gatewayConfig.ts'
import type { RuntimeChains, RuntimeContext } from '../../config/runtimeModule.ts'
import { ConfigError } from '../../errors/configError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { createEvmAdapter } from './createEvmAdapter.ts'
import { type EvmOptions, readEvmOptions } from './evmOptions.ts'
import { createChainList } from './discovery/createChainList.ts'
import { resolveChains } from './discovery/resolveChains.ts'

export async function createEvmChains(configs: ChainConfig[], { settings, logger, rpcRecorder, journal, leases }: RuntimeContext): Promise<RuntimeChains> {
  // Its own settings, as its module read them (the defaults where a configuration carries none).
  const options = (settings.runtimeOptions?.evm as EvmOptions | undefined) ?? readEvmOptions({}, [])
  const needsDiscovery = configs.some((c) => c.rpcUrls.length === 0)
  const chainList = needsDiscovery ? createChainList({ ...options.chainList, logger }) : undefined
  const chains = await resolveChains({ chains: configs, chainList, production: settings.production, logger })
  const relayerKeys =
    settings.keys.relayerPrivateKeys && settings.keys.relayerPrivateKeys.length > 0 ? settings.keys.relayerPrivateKeys : settings.keys.relayerPrivateKey ? [settings.keys.relayerPrivateKey] : []
  for (const chain of chains) {
    if (chain.readOnly && relayerKeys.length > 0) {
      logger.warn(
        { chainId: chain.chainId },
        `${chain.chainId} is read-only: it has no RPC_URLS, and discovered endpoints are not trusted to execute in production (validate only; set RPC_URLS to execute)`,
      )
    }
  }
  // Keys that never enter the process: their addresses are read from KMS at start-up.
  const kms = settings.signers?.kms
  let remoteAccounts: Array<LocalAccount & { backend: string }> = []
  try {
    if (kms && kms.keyIds.length > 0) {
      // KMS's SDK is loaded only when a KMS key is configured.
      const { createKmsSigner } = await import('../../signers/createKmsSigner.ts')
      remoteAccounts = await Promise.all(kms.keyIds.map((keyId) => createKmsSigner({ keyId, region: kms.region!, endpoint: kms.endpoint })))
    }
  } catch (err) {
    throw new ConfigError([`RELAYER_KMS_KEY_IDS: ${err instanceof GatewayError ? `${err.shortMessage} (${err.details})` : err instanceof Error ? err.message : String(err)}`])
  }
  const token = settings.signers?.pkcs11
  if (token) {
    try {
      // The native binding is loaded only when a token is configured.
      const { createPkcs11Signer } = await import('../../signers/createPkcs11Signer.ts')
      remoteAccounts.push(...token.keyLabels.map((keyLabel) => createPkcs11Signer({ ...token, keyLabel })))
    } catch (err) {
      throw new ConfigError([`RELAYER_PKCS11_KEY_LABELS: ${err instanceof Error ? err.message : String(err)}`])
    }
  }
  if (remoteAccounts.length > 0) logger.info({ relayers: remoteAccounts.map((a) => ({ address: a.address, signer: a.backend })) }, 'relayer keys held outside the process')
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
      maxGasPerExecution: settings.execution.maxGasPerExecution === undefined ? undefined : BigInt(settings.execution.maxGasPerExecution),
      rpcRecorder,
      confirmations: settings.execution.confirmations,
      maxFeePerGas: options.maxFeePerGas === undefined ? undefined : BigInt(options.maxFeePerGas),
      foldReads: options.multicall,
      cacheAnswers: options.validateCache,
      simulationGatherMs: options.simulationGatherMs,
      // Transactions of another instance of the chain (reset) hold no nonce on this one.
      unsettledTransactions: async (relayer, chainInstance) =>
        (await journal.pending({ chainId: chain.chainId, relayer }))
          .filter((r) => chainInstance === undefined || r.chainInstance === undefined || r.chainInstance === chainInstance)
          .flatMap((r) => r.transaction ?? []),
    }),
  )
  // The in-process x402 facilitator settles a price's network through that chain's first endpoint.
  const settlementRpcUrls = new Map(chains.flatMap((c) => (c.endpoints[0] ? [[c.chainId, c.endpoints[0].url] as const] : [])))
  return { adapters, settlementRpcUrls }
}
