// Wires configuration to parts: the execution journal, endpoints for every chain (configured or
// discovered), one adapter per chain checked by preflight, reconciliation of what the journal left
// unfinished, the chain registry and the HTTP app. main.ts and the tests both build the gateway
// through this.
import { createRedisClient } from './http/createRedisClient.ts'
import { createExecutionGuard } from './intents/createExecutionGuard.ts'
import { createWindowCounters } from './limits/createWindowCounters.ts'
import { createMetricsServer } from './http/createMetricsServer.ts'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildApp } from './app.ts'
import { createOps } from './ops/createOps.ts'
import { createLocalRelayerLeases } from './ports/relayerLeases.ts'
import { openStore } from './storageEngines.ts'
import { runtimes } from './runtimes.ts'
import { createChainRegistry } from './intents/createChainRegistry.ts'
import type { ChainAdapter } from './ports/chainAdapter.ts'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import type { FacilitatorSigners } from './signers/createFacilitatorSigners.ts'
import { ConfigError } from './errors/configError.ts'
import { holdSoleKey } from './chains/holdSoleKey.ts'
import { createFacilitatorSigners } from './signers/createFacilitatorSigners.ts'
import { createReconciler } from './intents/createReconciler.ts'
import { startRetention } from './store/startRetention.ts'
import { startWebhookDispatcher } from './webhooks/startWebhookDispatcher.ts'
import type { Journal } from './ports/journal.ts'
import { Registry } from 'prom-client'
import { createMetrics, type Metrics } from './metrics/createMetrics.ts'
import type { Tracing } from './tracing/createTracing.ts'

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
  config: GatewayConfig
  logger: Logger
  /** OpenTelemetry spans (tracing/createTracing.ts); without it nothing is wrapped and nothing traced. */
  tracing?: Tracing | undefined
}

/** Throws ConfigError when, in production, a chain's contracts are missing. */
export async function createGateway({ config, logger, tracing }: CreateGatewayParameters): Promise<Gateway> {
  const metrics = createMetrics({ registry: new Registry() })
  // The in-process facilitator's keys first (a token or KMS that cannot open them stops the start-up, naming the setting).
  const facilitator = config.payments?.facilitator
  const facilitatorSigners = facilitator?.kind === 'local' ? await createFacilitatorSigners(facilitator) : undefined
  // The storage engine the configuration chooses (storageEngines.ts): the journal, and the relayer leases when it is shared.
  const { journal: opened, leases } = await openStore(config)
  // With tracing, journal writes and RPC calls made for a request are spans of its trace.
  const journal = tracing ? tracing.traceJournal(opened) : opened
  const rpcRecorder = tracing ? tracing.traceRpcRecorder(metrics.rpc) : metrics.rpc
  logger.info({ journal: journal.path, pendingExecutions: await journal.pendingCount() }, 'execution journal open')

  // The operator's switches, read from the journal before anything sends (a drained instance claims nothing from its start).
  // jose is loaded only when OAuth is configured.
  const oauthVerifier = config.oauth && (await import('./auth/createOAuthVerifier.ts')).createOAuthVerifier({ config: config.oauth, logger })
  const ops = config.ops && createOps({ config: config.ops, journal, instanceId: config.storage.instanceId, logger, metrics, oauth: oauthVerifier })
  await ops?.start()
  const runtimeLeases = ops ? ops.drainable(leases ?? createLocalRelayerLeases()) : leases
  // Each runtime builds the adapters of its chains (its client loaded only when one is configured).
  const byId = new Map<string, ChainAdapter>()
  const settlementRpcUrls = new Map<string, string>()
  try {
    for (const module of runtimes) {
      const chains = config.chains.filter((c) => c.chainType === module.chainType)
      if (chains.length === 0) continue
      const built = await module.createChains(chains, { settings: config, logger, rpcRecorder, journal, leases: runtimeLeases })
      for (const adapter of built.adapters) byId.set(adapter.chainId, adapter)
      for (const [chainId, url] of built.settlementRpcUrls ?? []) settlementRpcUrls.set(chainId, url)
    }
  } catch (err) {
    await Promise.all([...byId.values()].map((a) => a.close()))
    await leases?.close()
    await journal.close()
    throw err
  }
  // Rate limits, standing and budgets shared by every instance: counted in Redis (the client loaded only when configured).
  const { limits } = config
  const redis = config.storage.redisUrl ? await createRedisClient(config.storage.redisUrl, logger) : undefined
  const guard = createExecutionGuard({
    config: limits,
    // Redis unreachable: each instance counts alone, held to its part of each limit among the live instances its leases know.
    counters: createWindowCounters({ windowMs: limits.windowMs, redis, prefix: `${config.storage.redisPrefix}limits:`, logger, liveInstances: () => leases?.liveInstances?.() ?? 1 }),
  })
  // In the configured order.
  const adapters = config.chains.map((c) => byId.get(c.chainId)!)
  // The in-process facilitator's account has one user among the instances (its nonce).
  const facilitatorEvm = facilitatorSigners?.evm
  const facilitatorSetting = facilitatorSigners?.keys.find((k) => k.key === 'evm')?.setting ?? 'FACILITATOR_PRIVATE_KEY'
  const facilitatorHold = leases && facilitatorEvm ? await holdSoleKey({ leases, scope: 'x402-facilitator', key: facilitatorEvm.address, setting: facilitatorSetting, logger }) : undefined
  const closeParts = async () => {
    ops?.stop()
    facilitatorHold?.close()
    await Promise.all(adapters.map((a) => a.close()))
    // Its sends are done: the keys go back at once, for the other instances.
    await leases?.releaseAll()
    await leases?.close()
    await journal.close()
    await redis?.quit().catch(() => redis.disconnect())
  }

  const problems: string[] = []
  problems.push(...facilitatorKeyProblems(facilitatorSigners, adapters))
  if (facilitatorSigners?.keys.length) logger.info({ facilitator: facilitatorSigners.keys.map(({ setting: _, ...key }) => key) }, 'x402 facilitator keys')
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
    leases !== undefined
      ? (chainId: string, relayer: string) => {
          const adapter = adapters.find((a) => a.chainId === chainId)
          return adapter?.holdsRelayer ? adapter.holdsRelayer(relayer) : adapter?.describe().relayer?.toLowerCase() === relayer.toLowerCase()
        }
      : undefined
  const webhooks = config.webhooks && startWebhookDispatcher({ journal, config: config.webhooks, logger, publicOnly: config.production })
  const retention = startRetention({ journal, retentionMs: config.storage.retentionDays * 86_400_000, logger })
  const reconciler = createReconciler({ journal, adapters, intervalMs: config.execution.reconcileIntervalMs, logger, holds })
  await reconciler.runOnce()
  reconciler.start()

  const registry = createChainRegistry({ adapters, defaultChainId: config.defaultChainId, runtimes: runtimes.map((r) => r.runtime) })
  metrics.observe({
    journalBacklog: () => journal.pendingCount(),
    relayerBalances: adapters.flatMap((a) => (a.relayerBalance ? [{ chain: a.chainId, read: a.relayerBalance }] : [])),
    webhookCircuitsOpen: webhooks ? webhooks.openCircuits : undefined,
  })
  // x402's packages are loaded only when something is priced.
  // A request whose settlement was pending is sent, once it confirms, through the app itself (bound below).
  let deliverTo: FastifyInstance | undefined
  const payments =
    config.payments &&
    (await (
      await import('./payments/startPayments.ts')
    ).startPayments({
      config: config.payments,
      facilitatorSigners,
      rpcUrls: settlementRpcUrls,
      journal,
      rpcTimeoutMs: config.rpc.timeoutMs,
      logger,
      resolveIntervalMs: config.execution.reconcileIntervalMs,
      settlementTimeoutMs: config.execution.receiptTimeoutMs,
      deliver: async (request) => {
        if (!deliverTo) throw new Error('the app is not built yet')
        const answer = await deliverTo.inject({ method: request.method, url: request.url, headers: request.headers, payload: request.body as object })
        return { httpStatus: answer.statusCode }
      },
      traceFacilitator: tracing?.traceFacilitator,
      // The pending-settlement resolver holds its sends on a paused chain until it resumes.
      held: ops ? (chainId: string) => ops.switches.pausedOn(chainId) !== undefined : undefined,
      // The facilitator's fee for each settlement, failed ones too, is that payer's spend (its gas budget and standing), never the relayer breaker's.
      onFacilitatorSpend: ({ chainId, payer, fee, failed }) => guard.recordPayerSpend({ chainId, client: `payer:${payer}`, fee, failed }),
      failedSettlementWindowMs: limits.windowMs,
      // A settlement is re-checked until as deep as an execution is final (GET /chains' `finality`).
      confirmations: config.execution.confirmations,
      onSettlementReorg: ({ chainId, outcome }) => metrics.recordPayment({ chain: chainId, outcome }),
    }))
  if (config.oauth) logger.info({ issuer: config.oauth.issuer, audience: config.oauth.audience }, 'OAuth access tokens accepted beside the API keys')
  const metricsEnabled = config.interfaces.metrics.enabled
  const metricsPort = config.interfaces.metrics.port
  const app = buildApp({
    registry,
    journal,
    logger,
    bodyLimit: config.server.bodyLimit,
    requestTimeoutMs: config.server.requestTimeoutMs,
    idleTimeoutMs: config.server.idleTimeoutMs,
    maxConnections: config.server.maxConnections,
    maxConnectionsPerClient: config.server.maxConnectionsPerClient,
    eventStreams: config.server.eventStreams,
    trustedProxies: config.server.trustedProxies,
    corsOrigins: config.server.corsOrigins,
    publicUrl: config.server.publicUrl,
    production: config.production,
    receiptTimeoutMs: config.execution.receiptTimeoutMs,
    idempotencyKeyTtlMs: config.execution.idempotencyKeyTtlMs,
    auth: config.auth,
    // The issuer's key set is read at the first token, not here: the gateway starts while its authorization server is down.
    oauth: config.oauth && oauthVerifier && { config: config.oauth, verifier: oauthVerifier },
    rateLimit: { ...config.rateLimit, redis, redisPrefix: config.storage.redisPrefix },
    guard: ops ? ops.observe(guard) : guard,
    ops,
    instance: { id: config.storage.instanceId, rateLimits: config.rateLimit.max === 0 ? 'off' : redis ? 'redis' : 'memory' },
    requireSignedIntents: config.execution.requireSignedIntents,
    // METRICS_ENABLED=false: nothing recorded, no /metrics.
    metrics: metricsEnabled ? metrics : undefined,
    metricsToken: config.interfaces.metrics.token,
    serveMetrics: metricsPort === undefined,
    mcp: config.interfaces.mcp,
    payments,
    tracing,
  })
  deliverTo = app
  const metricsServer =
    metricsEnabled && metricsPort !== undefined
      ? createMetricsServer({ metrics, token: config.interfaces.metrics.token, registry, logger, requestTimeoutMs: config.server.requestTimeoutMs, idleTimeoutMs: config.server.idleTimeoutMs })
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

/**
 * A facilitator key that is also a relayer's, by address (the settings may name one key twice:
 * an alias and its id, two labels of one key): the relayer's transactions belong to the journal.
 */
function facilitatorKeyProblems(signers: FacilitatorSigners | undefined, adapters: ChainAdapter[]): string[] {
  return adapters.flatMap((adapter) => {
    const { relayer, relayers } = adapter.describe()
    const held = [relayer, ...(relayers ?? []).map((r) => r.address)].filter((a): a is string => a !== undefined)
    return (signers?.keys ?? [])
      .filter((k) => held.some((a) => (k.key === 'evm' ? a.toLowerCase() === k.address.toLowerCase() : a === k.address)))
      .map((k) => `${k.setting}: its key ${k.address} is a relayer's key on ${adapter.chainId}; give the facilitator its own funded account`)
  })
}
