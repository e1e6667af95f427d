// Wires configuration to parts: the execution journal, endpoints for every chain (configured or
// discovered), one adapter per chain checked by preflight, reconciliation of what the journal left
// unfinished, the chain registry and the HTTP app. main.ts and the tests both build the gateway
// through this.
import type { InterfacesConfig } from './config/interfacesConfig.ts'
import type { PaymentsConfig } from './config/paymentsConfig.ts'
import type { StorageConfig } from './config/storageConfig.ts'
import { createRedisClient } from './http/createRedisClient.ts'
import { limitsConfig } from './config/limitsConfig.ts'
import { createExecutionGuard, type ExecutionGuardConfig } from './intents/createExecutionGuard.ts'
import { createWindowCounters } from './limits/createWindowCounters.ts'
import { createMetricsServer } from './http/createMetricsServer.ts'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildApp } from './app.ts'
import { createChainRegistry } from './chains/createChainRegistry.ts'
import { createChainList } from './chains/evm/discovery/createChainList.ts'
import { resolveChains } from './chains/evm/discovery/resolveChains.ts'
import type { ChainAdapter } from './ports/chainAdapter.ts'
import { createEvmAdapter } from './chains/evm/createEvmAdapter.ts'
import type { ChainConfig, GatewayConfig } from './config/loadConfig.ts'
import type { ChainType } from './ports/chainId.ts'
import { ConfigError } from './errors/configError.ts'
import { holdSoleKey } from './chains/holdSoleKey.ts'
import { privateKeyToAccount } from 'viem/accounts'
import { createReconciler } from './intents/createReconciler.ts'
import { startRetention } from './store/startRetention.ts'
import type { SignersConfig } from './config/signersConfig.ts'
import { createKmsSigner } from './signers/createKmsSigner.ts'
import { GatewayError } from './errors/gatewayError.ts'
import type { WebhooksConfig } from './config/webhooksConfig.ts'
import { startWebhookDispatcher } from './webhooks/startWebhookDispatcher.ts'
import type { Hex } from 'viem'
import { type Journal, openJournal } from './store/sqlite/openJournal.ts'
import { Registry } from 'prom-client'
import { createMetrics, type Metrics } from './metrics/createMetrics.ts'

export type Gateway = {
  app: FastifyInstance
  journal: Journal
  /** What GET /metrics serves, on a registry of this gateway's own. */
  metrics: Metrics
  /** With METRICS_PORT: the server of GET /metrics alone, not listening yet (main listens on it). */
  metricsServer: FastifyInstance | undefined
  /**
   * Stops taking requests, waits up to `timeoutMs` for those in flight (each execute is already
   * bounded by RECEIPT_TIMEOUT_MS), then cuts the rest: their transactions are journaled and are
   * reconciled at the next start. Closes the chains and the journal last.
   */
  close(options?: { timeoutMs?: number }): Promise<void>
}

export type CreateGatewayParameters = {
  config: Pick<GatewayConfig, 'chains' | 'defaultChainId' | 'relayerPrivateKey' | 'bodyLimit' | 'receiptTimeoutMs' | 'rpcTimeoutMs' | 'production'> & {
    /** The Sui relayer's key (`suiprivkey1…`); without it, Sui chains validate only. */
    suiRelayerPrivateKey?: string | undefined
    /** A funded Solana account named as fee payer of validate simulations (nothing is paid). */
    solanaSimulationFeePayer?: string | undefined
    /** The Solana relayer's 32-byte seed; without it, Solana chains validate only. */
    solanaRelayerPrivateKey?: Uint8Array | undefined
    /** x402 prices and the facilitator; without them nothing is priced. */
    payments?: PaymentsConfig | undefined
    /** Metrics and MCP settings; default: metrics on the API's port, MCP on. */
    interfaces?: InterfacesConfig | undefined
    chainList?: GatewayConfig['chainList'] | undefined
    auth?: GatewayConfig['auth'] | undefined
    rateLimit?: GatewayConfig['rateLimit'] | undefined
    pollingIntervalMs?: number
    /** Defaults to an in-memory journal (tests). */
    journal?: GatewayConfig['journal'] | undefined
    /** The journal in PostgreSQL, rate limits in Redis, the instance's name; default: none shared. */
    storage?: StorageConfig | undefined
    /** A pool of EVM relayer keys (RELAYER_PRIVATE_KEY and RELAYER_PRIVATE_KEYS); default: `relayerPrivateKey` alone. */
    relayerPrivateKeys?: Hex[] | undefined
    reconcileIntervalMs?: number | undefined
    requestTimeoutMs?: number | undefined
    idleTimeoutMs?: number | undefined
    maxConnections?: number | undefined
    /** Connections one client address may hold (MAX_CONNECTIONS_PER_CLIENT); default: maxConnections. */
    maxConnectionsPerClient?: number | undefined
    /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); default: none. */
    trustedProxies?: string[] | undefined
    corsOrigins?: string[] | undefined
    /** Refuse unsigned executes at once (401, 0xE5); default false: the chain decides. */
    requireSignedIntents?: boolean | undefined
    /** The most gas the relayer pays for one execution; default: no cap (tests). */
    maxGasPerExecution?: number | undefined
    /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
    metricsToken?: string | undefined
    /** Blocks deep before an execution is final (CONFIRMATIONS); default 1. */
    confirmations?: number | undefined
    /** The fee ceiling (wei per gas) for re-pricing stuck executions (MAX_FEE_PER_GAS_GWEI); default: no re-pricing. */
    maxFeePerGas?: number | undefined
    /** Fold concurrent validator reads into Multicall3 where a chain has it (MULTICALL); default true. */
    multicall?: boolean | undefined
    /** Keep validator answers for the block they were read on (VALIDATE_CACHE); default false. */
    validateCache?: boolean | undefined
    /** Relayer keys in KMS, joined to the pool with the local keys; default: none. */
    signers?: SignersConfig | undefined
    /** Signed webhooks of execution events; default: none. */
    webhooks?: WebhooksConfig | undefined
    /** Standing after reverts and spend budgets; default: limitsConfig's defaults. */
    limits?: ExecutionGuardConfig | undefined
  }
  logger: Logger
}

/** Throws ConfigError when, in production, a chain's contracts are missing. */
export async function createGateway({ config, logger }: CreateGatewayParameters): Promise<Gateway> {
  // Discovery knows EVM chains only; the other runtimes' endpoints come from RPC_URLS.
  const evmConfigs = config.chains.filter((c) => c.chainType === 'evm')
  const needsDiscovery = evmConfigs.some((c) => c.rpcUrls.length === 0)
  const chainList = needsDiscovery && config.chainList ? createChainList({ ...config.chainList, logger }) : undefined
  const chains = await resolveChains({ chains: evmConfigs, chainList, production: config.production, logger })
  for (const chain of chains) {
    if (chain.readOnly && config.relayerPrivateKey) {
      logger.warn({ chainId: chain.chainId }, `${chain.chainId} is read-only: it has no RPC_URLS, and discovered endpoints are not trusted to execute in production (validate only; set RPC_URLS to execute)`)
    }
  }
  const metrics = createMetrics({ registry: new Registry() })
  const databaseUrl = config.storage?.databaseUrl
  // PostgreSQL's driver is loaded only when the journal lives there.
  const journal = databaseUrl
    ? await (await import('./store/postgres/openPostgresJournal.ts')).openPostgresJournal({ url: databaseUrl, instanceId: config.storage?.instanceId })
    : openJournal(config.journal ?? { path: ':memory:' })
  logger.info({ journal: journal.path, pendingExecutions: await journal.pendingCount() }, 'execution journal open')

  // A shared journal: the relayer keys are leased to one instance at a time.
  const leases = databaseUrl ? (await import('./store/postgres/createPostgresRelayerLeases.ts')).createPostgresRelayerLeases({ url: databaseUrl, instanceId: config.storage!.instanceId, ttlMs: config.storage!.relayerLeaseTtlMs }) : undefined
  const relayerKeys = config.relayerPrivateKeys && config.relayerPrivateKeys.length > 0 ? config.relayerPrivateKeys : config.relayerPrivateKey ? [config.relayerPrivateKey] : []
  // Keys that never enter the process: their addresses are read from KMS at start-up.
  const kms = config.signers?.kms
  let remoteAccounts: Awaited<ReturnType<typeof createKmsSigner>>[]
  try {
    remoteAccounts = kms && kms.keyIds.length > 0 ? await Promise.all(kms.keyIds.map((keyId) => createKmsSigner({ keyId, region: kms.region!, endpoint: kms.endpoint }))) : []
  } catch (err) {
    await leases?.close()
    await journal.close()
    throw new ConfigError([`RELAYER_KMS_KEY_IDS: ${err instanceof GatewayError ? `${err.shortMessage} (${err.details})` : err instanceof Error ? err.message : String(err)}`])
  }
  const token = config.signers?.pkcs11
  if (token) {
    try {
      // The native binding is loaded only when a token is configured.
      const { createPkcs11Signer } = await import('./signers/createPkcs11Signer.ts')
      remoteAccounts.push(...token.keyLabels.map((keyLabel) => createPkcs11Signer({ ...token, keyLabel })))
    } catch (err) {
      await leases?.close()
      await journal.close()
      throw new ConfigError([`RELAYER_PKCS11_KEY_LABELS: ${err instanceof Error ? err.message : String(err)}`])
    }
  }
  if (remoteAccounts.length > 0) logger.info({ relayers: remoteAccounts.map((a) => ({ address: a.address, signer: a.backend })) }, 'relayer keys held outside the process')
  const evmAdapters = chains.map((chain) =>
    createEvmAdapter({
      chain,
      // A read-only chain gets no relayer: nothing is ever signed or sent on it.
      relayerPrivateKey: undefined,
      relayerPrivateKeys: chain.readOnly ? [] : relayerKeys,
      relayerAccounts: chain.readOnly ? [] : remoteAccounts,
      leases,
      rpcTimeoutMs: config.rpcTimeoutMs,
      pollingIntervalMs: config.pollingIntervalMs ?? 500,
      logger,
      maxGasPerExecution: config.maxGasPerExecution === undefined ? undefined : BigInt(config.maxGasPerExecution),
      rpcRecorder: metrics.rpc,
      confirmations: config.confirmations,
      maxFeePerGas: config.maxFeePerGas === undefined ? undefined : BigInt(config.maxFeePerGas),
      foldReads: config.multicall ?? true,
      cacheAnswers: config.validateCache ?? false,
      // Transactions of another instance of the chain (reset) hold no nonce on this one.
      unsettledTransactions: async (relayer, chainInstance) =>
        (await journal.pending({ chainId: chain.chainId, relayer }))
          .filter((r) => chainInstance === undefined || r.chainInstance === undefined || r.chainInstance === chainInstance)
          .flatMap((r) => r.transaction ?? []),
    }),
  )
  // Each runtime's client is loaded only when one of its chains is configured.
  const otherRuntimes: Record<Exclude<ChainType, 'evm'>, (chain: ChainConfig) => Promise<ChainAdapter>> = {
    async solana(chain) {
      const { createSolanaAdapter } = await import('./chains/solana/createSolanaAdapter.ts')
      return createSolanaAdapter({
        chain: { chainId: chain.chainId, reference: chain.reference, rpcUrls: chain.rpcUrls, programId: chain.validator as never, config: chain.registry as never },
        rpcTimeoutMs: config.rpcTimeoutMs,
        logger,
        simulationFeePayer: config.solanaSimulationFeePayer as never,
        relayerSecretKey: config.solanaRelayerPrivateKey,
        rpcRecorder: metrics.rpc,
      })
    },
    async sui(chain) {
      const { createSuiAdapter } = await import('./chains/sui/createSuiAdapter.ts')
      return createSuiAdapter({
        chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrls[0]!, packageId: chain.executor, hubId: chain.registry },
        relayerSecretKey: config.suiRelayerPrivateKey,
        rpcTimeoutMs: config.rpcTimeoutMs,
        logger,
        rpcRecorder: metrics.rpc,
      })
    },
  }
  const byId = new Map<string, ChainAdapter>(evmAdapters.map((a) => [a.chainId, a]))
  try {
    for (const chain of config.chains) if (chain.chainType !== 'evm') byId.set(chain.chainId, await otherRuntimes[chain.chainType](chain))
  } catch (err) {
    await Promise.all([...byId.values()].map((a) => a.close()))
    await journal.close()
    throw err
  }
  // Rate limits, standing and budgets shared by every instance: counted in Redis (the client loaded only when configured).
  const limits = config.limits ?? limitsConfig({}).value
  const redis = config.storage?.redisUrl ? await createRedisClient(config.storage.redisUrl, logger) : undefined
  const guard = createExecutionGuard({ config: limits, counters: createWindowCounters({ windowMs: limits.windowMs, redis, prefix: `${config.storage?.redisPrefix ?? 'intent-gateway:'}limits:`, logger }) })
  // In the configured order.
  const adapters = config.chains.map((c) => byId.get(c.chainId)!)
  // The in-process facilitator's account has one user among the instances (its nonce).
  const facilitator = config.payments?.facilitator
  const facilitatorHold = leases && facilitator?.kind === 'local' ? await holdSoleKey({ leases, scope: 'x402-facilitator', key: privateKeyToAccount(facilitator.privateKey).address, setting: 'FACILITATOR_PRIVATE_KEY', logger }) : undefined
  const closeParts = async () => {
    facilitatorHold?.close()
    await Promise.all(adapters.map((a) => a.close()))
    // Its sends are done: the keys go back at once, for the other instances.
    await leases?.releaseAll()
    await leases?.close()
    await journal.close()
    await redis?.quit().catch(() => redis.disconnect())
  }

  const problems: string[] = []
  if (facilitatorHold?.problem) {
    if (config.production) problems.push(facilitatorHold.problem)
    else logger.warn(facilitatorHold.problem)
  }
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
  if (problems.length > 0) {
    await closeParts()
    throw new ConfigError(problems)
  }

  // Before any request: what a crash left in flight is settled, or broadcast again, first.
  // A journal shared with other instances: each reconciles the records of its own relayer keys only.
  const holds =
    journal.backend === 'postgres'
      ? (chainId: string, relayer: string) => {
          const adapter = adapters.find((a) => a.chainId === chainId)
          return adapter?.holdsRelayer ? adapter.holdsRelayer(relayer) : adapter?.describe().relayer?.toLowerCase() === relayer.toLowerCase()
        }
      : undefined
  const webhooks = config.webhooks && startWebhookDispatcher({ journal, config: config.webhooks, logger, publicOnly: config.production })
  const retention = startRetention({ journal, retentionMs: (config.storage?.retentionDays ?? 30) * 86_400_000, logger })
  const reconciler = createReconciler({ journal, adapters, intervalMs: config.reconcileIntervalMs ?? 5_000, logger, holds })
  await reconciler.runOnce()
  reconciler.start()

  const registry = createChainRegistry({ adapters, defaultChainId: config.defaultChainId })
  metrics.observe({
    journalBacklog: () => journal.pendingCount(),
    relayerBalances: adapters.flatMap((a) => (a.relayerBalance ? [{ chain: a.chainId, read: a.relayerBalance }] : [])),
  })
  // x402's packages are loaded only when something is priced.
  const payments = config.payments && (await (await import('./payments/startPayments.ts')).startPayments({ config: config.payments, chains, journal, rpcTimeoutMs: config.rpcTimeoutMs, logger, resolveIntervalMs: config.reconcileIntervalMs }))
  const metricsEnabled = config.interfaces?.metrics.enabled ?? true
  const metricsPort = config.interfaces?.metrics.port
  const app = buildApp({
    registry,
    journal,
    logger,
    bodyLimit: config.bodyLimit,
    requestTimeoutMs: config.requestTimeoutMs,
    idleTimeoutMs: config.idleTimeoutMs,
    maxConnections: config.maxConnections,
    maxConnectionsPerClient: config.maxConnectionsPerClient,
    trustedProxies: config.trustedProxies,
    corsOrigins: config.corsOrigins,
    receiptTimeoutMs: config.receiptTimeoutMs,
    auth: config.auth,
    rateLimit: config.rateLimit && { ...config.rateLimit, redis, redisPrefix: config.storage?.redisPrefix },
    guard,
    instance: { id: config.storage?.instanceId ?? 'local', rateLimits: !config.rateLimit || config.rateLimit.max === 0 ? 'off' : redis ? 'redis' : 'memory' },
    requireSignedIntents: config.requireSignedIntents ?? false,
    // METRICS_ENABLED=false: nothing recorded, no /metrics.
    metrics: metricsEnabled ? metrics : undefined,
    metricsToken: config.metricsToken,
    serveMetrics: metricsPort === undefined,
    mcp: { enabled: config.interfaces?.mcp.enabled ?? true },
    payments,
  })
  const metricsServer =
    metricsEnabled && metricsPort !== undefined
      ? createMetricsServer({ metrics, token: config.metricsToken, registry, logger, requestTimeoutMs: config.requestTimeoutMs, idleTimeoutMs: config.idleTimeoutMs })
      : undefined
  return {
    app,
    journal,
    metrics,
    metricsServer,
    async close({ timeoutMs } = {}) {
      let timer: ReturnType<typeof setTimeout> | undefined
      // A keep-alive connection whose request finishes during shutdown would otherwise hold the
      // close open until the client lets go of it: close each one as soon as it is idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100)
      const closed = app.close().then(() => true)
      const bound = timeoutMs === undefined ? closed : Promise.race([closed, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))])
      if (!(await bound)) {
        logger.warn({ timeoutMs }, 'shutdown bound reached: cutting the requests still open; their journaled transactions are reconciled at the next start')
        app.server.closeAllConnections()
      }
      clearTimeout(timer)
      clearInterval(sweep)
      await metricsServer?.close()
      await reconciler.stop()
      await retention.stop()
      await webhooks?.stop()
      await payments?.close()
      await closeParts()
    },
  }
}
