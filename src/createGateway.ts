// Wires configuration to parts: one adapter per chain, the chain registry, the intent store and
// the HTTP app. main.ts and the tests both build the gateway through this.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildApp } from './app.ts'
import { createChainRegistry } from './chains/createChainRegistry.ts'
import { createEvmAdapter } from './chains/evm/createEvmAdapter.ts'
import type { GatewayConfig } from './config/loadConfig.ts'
import { createIntentStore } from './intents/createIntentStore.ts'

export type Gateway = { app: FastifyInstance; close(): Promise<void> }

export type CreateGatewayParameters = {
  config: Pick<GatewayConfig, 'chains' | 'defaultChainId' | 'relayerPrivateKey' | 'bodyLimit' | 'receiptTimeoutMs' | 'rpcTimeoutMs'> & { pollingIntervalMs?: number }
  logger: Logger
}

export function createGateway({ config, logger }: CreateGatewayParameters): Gateway {
  const adapters = config.chains.map((chain) =>
    createEvmAdapter({
      chain,
      relayerPrivateKey: config.relayerPrivateKey,
      rpcTimeoutMs: config.rpcTimeoutMs,
      pollingIntervalMs: config.pollingIntervalMs ?? 500,
      logger,
    }),
  )
  const registry = createChainRegistry({ adapters, defaultChainId: config.defaultChainId })
  const app = buildApp({ registry, store: createIntentStore(), logger, bodyLimit: config.bodyLimit, receiptTimeoutMs: config.receiptTimeoutMs })
  return {
    app,
    async close() {
      await app.close()
      await Promise.all(adapters.map((a) => a.close()))
    },
  }
}
