// The composition root: configuration to a running gateway, in named steps beside this file:
// openStores (journal, leases, Redis), startChains (each runtime's adapters, checked by preflight),
// then what a crash left unfinished, startGatewayPayments and buildGatewayApp (the HTTP app).
// main.ts and the tests both build the gateway through this.

import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { Registry } from 'prom-client'
import { buildGatewayApp } from './buildGatewayApp.ts'
import { holdSoleKey } from './chains/holdSoleKey.ts'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import { ConfigError } from './errors/configError.ts'
import { createChainRegistry } from './intents/createChainRegistry.ts'
import { createExecutionGuard } from './intents/createExecutionGuard.ts'
import { createReconciler } from './intents/createReconciler.ts'
import { createWindowCounters } from './limits/createWindowCounters.ts'
import { createMetrics, type Metrics } from './metrics/createMetrics.ts'
import { openStores } from './openStores.ts'
import { createOps } from './ops/createOps.ts'
import type { ChainAdapter } from './ports/chainAdapter.ts'
import type { Journal } from './ports/journal.ts'
import { createLocalRelayerLeases } from './ports/relayerLeases.ts'
import { runtimes } from './runtimes.ts'
import type { FacilitatorSigners } from './signers/createFacilitatorSigners.ts'
import { createFacilitatorSigners } from './signers/createFacilitatorSigners.ts'
import { startChains } from './startChains.ts'
import { startGatewayPayments } from './startGatewayPayments.ts'
import { startRetention } from './store/startRetention.ts'
import type { Tracing } from './tracing/createTracing.ts'
import { startWebhookDispatcher } from './webhooks/startWebhookDispatcher.ts'

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

/**
 * In named steps: the facilitator's keys, the stores, the operator's switches, the chains, the
 * limits, what a crash left unfinished, payments, then the app. Throws ConfigError when, in
 * production, a chain's contracts are missing.
 */
export async function createGateway({ config, logger, tracing }: CreateGatewayParameters): Promise<Gateway> {
  const metrics = createMetrics({ registry: new Registry() })
  // The in-process facilitator's keys first (a token or KMS that cannot open them stops the start-up, naming the setting).
  const facilitator = config.payments?.facilitator
  const facilitatorSigners = facilitator?.kind === 'local' ? await createFacilitatorSigners(facilitator) : undefined
  const stores = await openStores({ config, logger, tracing })
  const { journal, leases, redis } = stores

  // The operator's switches, read from the journal before anything sends (a drained instance claims nothing from its start).
  // jose is loaded only when OAuth is configured.
  const oauthVerifier =
    config.oauth &&
    (await import('./auth/createOAuthVerifier.ts')).createOAuthVerifier({ config: config.oauth, logger })
  const ops =
    config.ops &&
    createOps({
      config: config.ops,
      journal,
      instanceId: config.storage.instanceId,
      logger,
      metrics,
      oauth: oauthVerifier,
    })
  await ops?.start()
  const chains = await startChains(config, {
    logger,
    // With tracing, RPC calls made for a request are spans of its trace.
    rpcRecorder: tracing ? tracing.traceRpcRecorder(metrics.rpc) : metrics.rpc,
    journal,
    leases: ops ? ops.drainable(leases ?? createLocalRelayerLeases()) : leases,
  }).catch(async (err) => {
    await stores.close()
    throw err
  })
  const { adapters } = chains
  // Rate limits, standing and budgets shared by every instance: counted in Redis when configured.
  const { limits } = config
  const guard = createExecutionGuard({
    config: limits,
    // Redis unreachable: each instance counts alone, held to its part of each limit among the live instances its leases know.
    counters: createWindowCounters({
      windowMs: limits.windowMs,
      redis,
      prefix: `${config.storage.redisPrefix}limits:`,
      logger,
      liveInstances: () => leases?.liveInstances?.() ?? 1,
    }),
  })
  // The in-process facilitator's account has one user among the instances (its nonce).
  const facilitatorEvm = facilitatorSigners?.evm
  const facilitatorSetting =
    facilitatorSigners?.keys.find((k) => k.address === facilitatorEvm?.address)?.setting ?? 'FACILITATOR_PRIVATE_KEY'
  const facilitatorHold =
    leases && facilitatorEvm
      ? await holdSoleKey({
          leases,
          scope: 'x402-facilitator',
          key: facilitatorEvm.address,
          setting: facilitatorSetting,
          logger,
        })
      : undefined
  const closeParts = async () => {
    ops?.stop()
    facilitatorHold?.close()
    await Promise.all(adapters.map((a) => a.close()))
    // Its sends are done: the keys go back at once, for the other instances.
    await leases?.releaseAll()
    await stores.close()
  }

  const problems: string[] = []
  problems.push(...facilitatorKeyProblems(facilitatorSigners, adapters))
  if (facilitatorSigners?.keys.length)
    logger.info({ facilitator: facilitatorSigners.keys.map(({ setting: _, ...key }) => key) }, 'x402 facilitator keys')
  if (facilitatorHold?.problem) {
    if (config.production) problems.push(facilitatorHold.problem)
    else logger.warn(facilitatorHold.problem)
  }
  problems.push(...chains.problems)
  if (problems.length > 0) {
    await closeParts()
    throw new ConfigError(problems)
  }

  const background = await startBackgroundWork({ config, logger, journal, adapters, shared: leases !== undefined })
  const registry = createChainRegistry({
    adapters,
    defaultChainId: config.defaultChainId,
    runtimes: runtimes.map((r) => r.runtime),
  })
  metrics.observe({
    journalBacklog: () => journal.pendingCount(),
    relayerBalances: adapters.flatMap((a) => (a.relayerBalance ? [{ chain: a.chainId, read: a.relayerBalance }] : [])),
    webhookCircuitsOpen: background.webhooks ? background.webhooks.openCircuits : undefined,
  })
  // A request whose settlement was pending is sent, once it confirms, through the app (built below).
  let deliverTo: FastifyInstance | undefined
  const payments = await startGatewayPayments({
    config,
    facilitatorSigners,
    chainEndpoints: chains.endpoints,
    journal,
    logger,
    guard,
    metrics,
    ops,
    tracing,
    app: () => deliverTo,
  })
  if (config.oauth)
    logger.info(
      { issuer: config.oauth.issuer, audience: config.oauth.audience },
      'OAuth access tokens accepted beside the API keys',
    )
  // The issuer's key set is read at the first token, not here: the gateway starts while its authorization server is down.
  const { app, metricsServer } = buildGatewayApp(config, {
    registry,
    journal,
    logger,
    oauthVerifier,
    redis,
    guard,
    ops,
    metrics,
    payments,
    tracing,
  })
  deliverTo = app
  const { reconciler, retention, webhooks } = background
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
      const bound =
        timeoutMs === undefined
          ? closed
          : Promise.race([
              closed,
              new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
            ])
      if (!(await bound)) {
        logger.warn(
          { timeoutMs },
          'shutdown bound reached: cutting the requests still open; their journaled transactions are reconciled at the next start',
        )
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
      .filter((k) => held.some((a) => sameAddress(a, k.address)))
      .map(
        (k) =>
          `${k.setting}: its key ${k.address} is a relayer's key on ${adapter.chainId}; give the facilitator its own funded account`,
      )
  })
}

/** One account's address in two spellings: hex (`0x…`, EVM's checksummed or not) compares without case; base58 exactly. */
function sameAddress(a: string, b: string): boolean {
  return /^0x[0-9a-f]+$/i.test(a) && /^0x[0-9a-f]+$/i.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b
}

/**
 * Before any request: what a crash left in flight is settled, or broadcast again, first; then the
 * reconciler keeps at it, retention trims the journal and webhooks are sent. A journal shared with
 * other instances: each reconciles the records of its own relayer keys only.
 */
async function startBackgroundWork({
  config,
  logger,
  journal,
  adapters,
  shared,
}: {
  config: GatewayConfig
  logger: Logger
  journal: Journal
  adapters: ChainAdapter[]
  shared: boolean
}) {
  const holds = shared
    ? (chainId: string, relayer: string) => {
        const adapter = adapters.find((a) => a.chainId === chainId)
        return adapter?.holdsRelayer
          ? adapter.holdsRelayer(relayer)
          : adapter?.describe().relayer?.toLowerCase() === relayer.toLowerCase()
      }
    : undefined
  const webhooks =
    config.webhooks &&
    startWebhookDispatcher({ journal, config: config.webhooks, logger, publicOnly: config.production })
  const retention = startRetention({ journal, retentionMs: config.storage.retentionDays * 86_400_000, logger })
  const reconciler = createReconciler({
    journal,
    adapters,
    intervalMs: config.execution.reconcileIntervalMs,
    logger,
    holds,
  })
  await reconciler.runOnce()
  reconciler.start()
  return { webhooks, retention, reconciler }
}
