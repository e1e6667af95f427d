// Wires configuration to parts: endpoints for every chain (configured or discovered), one
// adapter per chain checked by preflight, the chain registry, the intent store and the HTTP app.
// main.ts and the tests both build the gateway through this.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildApp } from './app.ts'
import { createChainRegistry } from './chains/createChainRegistry.ts'
import { createChainList } from './chains/discovery/createChainList.ts'
import { resolveChains } from './chains/discovery/resolveChains.ts'
import { createEvmAdapter } from './chains/evm/createEvmAdapter.ts'
import type { GatewayConfig } from './config/loadConfig.ts'
import { ConfigError } from './errors/configError.ts'
import { createIntentStore } from './intents/createIntentStore.ts'

export type Gateway = { app: FastifyInstance; close(): Promise<void> }

export type CreateGatewayParameters = {
  config: Pick<GatewayConfig, 'chains' | 'defaultChainId' | 'relayerPrivateKey' | 'bodyLimit' | 'receiptTimeoutMs' | 'rpcTimeoutMs' | 'production'> & {
    chainList?: GatewayConfig['chainList'] | undefined
    auth?: GatewayConfig['auth'] | undefined
    rateLimit?: GatewayConfig['rateLimit'] | undefined
    pollingIntervalMs?: number
  }
  logger: Logger
}

/** Throws ConfigError when, in production, a chain's contracts are missing. */
export async function createGateway({ config, logger }: CreateGatewayParameters): Promise<Gateway> {
  const needsDiscovery = config.chains.some((c) => c.rpcUrls.length === 0)
  const chainList = needsDiscovery && config.chainList ? createChainList({ ...config.chainList, logger }) : undefined
  const chains = await resolveChains({ chains: config.chains, chainList, logger })

  const adapters = chains.map((chain) =>
    createEvmAdapter({
      chain,
      relayerPrivateKey: config.relayerPrivateKey,
      rpcTimeoutMs: config.rpcTimeoutMs,
      pollingIntervalMs: config.pollingIntervalMs ?? 500,
      logger,
    }),
  )

  const problems: string[] = []
  await Promise.all(
    adapters.map(async (adapter) => {
      const result = await adapter.preflight()
      if (result.ok) return
      if ('missing' in result) {
        const reason = `no contract code on ${adapter.chainId} for: ${result.missing.join(', ')}`
        if (config.production) problems.push(`${adapter.chainId}: ${reason} (check the addresses and the chain)`)
        else adapter.markUnavailable(reason)
      } else {
        // The node may come up later: serve, and let requests answer 503 until it does.
        logger.warn({ chainId: adapter.chainId, reason: result.unreachable }, 'preflight could not reach the chain; its contracts are unchecked')
      }
    }),
  )
  if (problems.length > 0) throw new ConfigError(problems)

  const registry = createChainRegistry({ adapters, defaultChainId: config.defaultChainId })
  const app = buildApp({ registry, store: createIntentStore(), logger, bodyLimit: config.bodyLimit, receiptTimeoutMs: config.receiptTimeoutMs, auth: config.auth, rateLimit: config.rateLimit })
  return {
    app,
    async close() {
      await app.close()
      await Promise.all(adapters.map((a) => a.close()))
    },
  }
}
