// Entry point: read the configuration (starting the embedded devnet when nothing is configured
// outside production), build the gateway, listen, and shut everything down on SIGINT/SIGTERM.
import cluster from 'node:cluster'
import { existsSync } from 'node:fs'
import { perWorkerServerConfig } from './cluster/perWorkerServerConfig.ts'
import { awaitWorkerStart, runPrimary, type WorkerListening } from './cluster/runPrimary.ts'
import { devnetApiKey } from './config/devnetApiKey.ts'
import { devnetListenHost } from './config/devnetListenHost.ts'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import { limitHeapGrowth } from './config/limitHeapGrowth.ts'
import { optimizeWhenHot } from './config/optimizeWhenHot.ts'
import type { RuntimeDevnet } from './config/runtimeModule.ts'
import { startNativeHeapTrim } from './config/trimNativeHeap.ts'
import { workerInstanceId } from './config/workersConfig.ts'
import { createGateway } from './createGateway.ts'
import { hashApiKey } from './crypto/hashApiKey.ts'
import { ConfigError } from './errors/configError.ts'
import { gatewayVersion } from './http/plugins/gatewayVersion.ts'
import { createLogger } from './logging/createLogger.ts'
import { loadConfig, runtimes } from './runtimes.ts'
import type { StartedTracing } from './tracing/startTracing.ts'
import { readTracingConfig, type TracingConfig } from './tracing/tracingConfig.ts'

// --version answers before anything is read or started (no .env, no configuration, no devnet).
if (process.argv.slice(2).includes('--version')) {
  process.stdout.write(`intent-gateway ${gatewayVersion}\n`)
  process.exit(0)
}

// Small functions optimized once hot, not at their first tick, on a V8 that would do that (Node 20).
optimizeWhenHot()

if (existsSync('.env')) process.loadEnvFile('.env') // never overrides what the environment already says

let config: GatewayConfig
let tracingConfig: TracingConfig
try {
  // OpenTelemetry's own OTEL_* variables: their problems are listed with the rest.
  const tracingRead = readTracingConfig(process.env)
  let problems = tracingRead.problems
  let loaded: GatewayConfig | undefined
  try {
    loaded = loadConfig(process.env)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    problems = [...err.problems, ...problems]
  }
  if (!loaded || problems.length > 0) throw new ConfigError(problems)
  config = loaded
  tracingConfig = tracingRead.value
} catch (err) {
  if (!(err instanceof ConfigError)) throw err
  process.stderr.write(`${err.message}\n`)
  process.exit(1)
}

limitHeapGrowth(config.process.heapGrowingPercent)

// The SDK is loaded only when tracing is configured: with no OTEL_* variable, nothing of it runs.
const tracing: StartedTracing | undefined = tracingConfig.enabled
  ? (await import('./tracing/startTracing.ts')).startTracing(tracingConfig)
  : undefined
const logger = createLogger({ level: config.process.logLevel, mixin: tracing?.logFields })
if (tracingConfig.enabled)
  logger.info(
    { exporter: tracingConfig.exporter, endpoint: tracingConfig.endpoint, serviceName: tracingConfig.serviceName },
    'tracing on (OpenTelemetry)',
  )

/** Waits until buffered log lines are written: logs are asynchronous (see createLogger). */
const flushLogs = () => new Promise<void>((resolve) => logger.flush(() => resolve()))
/** On the way out: the spans still batched are exported (the SDK bounds how long it tries). */
const stopTracing = async () => {
  await tracing?.shutdown()
}
// Buffered lines reach the output within a second even when traffic is low.
setInterval(() => logger.flush(), 1000).unref()

/** The devnet chains started, one per runtime that has one, stopped on the way out. */
let devnets: RuntimeDevnet[] = []
const stopDevnet = async () => {
  await Promise.allSettled(devnets.map((d) => d.stop()))
}
/** WORKERS > 1: this process is one of the workers (its number), or the primary that serves nothing. */
const worker = cluster.isWorker ? await awaitWorkerStart() : undefined
const configRead = config
if (worker) {
  // What the primary alone knows (the devnet's chains and settings), and this worker's own name in the fleet.
  config = { ...config, ...(worker.overrides as Partial<GatewayConfig>) }
  config = { ...config, process: { ...config.process, devnet: false } }
  config = {
    ...config,
    storage: { ...config.storage, instanceId: workerInstanceId(config.storage.instanceId, worker.worker) },
  }
  // Each worker counts its own connections and streams: its share of the gateway's caps.
  config = { ...config, server: perWorkerServerConfig(config.server, config.process.workers) }
}
if (config.process.devnet && !worker) {
  const starters = runtimes.flatMap((r) => (r.devnet ? [r.devnet] : []))
  process.stdout.write(
    `No chain is configured and NODE_ENV is not production: starting the embedded devnet (${starters.map((d) => d.name).join(' and ')})...\n`,
  )
  // The devnet's modules (anvil, LiteSVM, the demo) are loaded only here, never in production.
  const started = await Promise.allSettled(starters.map((d) => d.start()))
  devnets = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  const failed = started.find((s) => s.status === 'rejected')
  if (failed) {
    // Some may have started: stop what did, then fail.
    await stopDevnet()
    throw failed.reason
  }
  config = {
    ...config,
    chains: devnets.map((d) => d.chain),
    defaultChainId: devnets.find((d) => d.isDefault)?.chain.chainId,
    auth: config.auth.keyHashes.length > 0 ? config.auth : { ...config.auth, keyHashes: [hashApiKey(devnetApiKey)] },
    server: { ...config.server, host: devnetListenHost({ env: process.env, host: config.server.host }) },
  }
  // What the devnets supply (their relayer keys and options, their chains' prices) fills only what the operator left unset.
  config = {
    ...config,
    keys: devnetKeys(config.keys, devnets),
    runtimeOptions: devnetOptions(config.runtimeOptions, devnets),
    payments: config.payments ?? devnetPayments(devnets),
  }
}

const onDevnet = worker ? worker.onDevnet : devnets.length > 0
if (!worker && config.process.workers > 1) {
  // The primary: the workers serve, each with the configuration as read here and the devnet's additions.
  const overrides = Object.fromEntries(
    Object.entries(config).filter(([name, value]) => configRead[name as keyof GatewayConfig] !== value),
  )
  runPrimary({
    workers: config.process.workers,
    overrides,
    onDevnet,
    logger,
    onListening: async (port) => {
      logger.info(
        {
          host: config.server.host,
          port,
          workers: config.process.workers,
          chains: config.chains.map((c) => c.chainId),
        },
        `Intent Gateway listening on ${config.server.host}:${port} (${config.process.workers} workers)`,
      )
      await flushLogs()
      if (devnets.length > 0) await printDevnetWelcome(port)
    },
    onStopped: async () => {
      await stopDevnet()
      await stopTracing()
      logger.info('stopped')
      await flushLogs()
    },
  })
} else {
  await serve()
}

async function printDevnetWelcome(port: number) {
  const baseUrl = `http://127.0.0.1:${port}`
  const parts = await Promise.all(devnets.map((d) => d.describe({ baseUrl, apiKey: devnetApiKey })))
  process.stdout.write(
    [
      '',
      `Intent Gateway is running on its embedded devnet at ${baseUrl} (listening on ${config.server.host}:${port}).`,
      ...parts.flatMap((p) => [p, '']),
      'Press Ctrl-C to stop the gateway and the devnet.',
      '',
    ].join('\n'),
  )
}

/** One process serving (WORKERS=1), or one worker of several. */
async function serve() {
  let gateway: Awaited<ReturnType<typeof createGateway>>
  try {
    // The devnet mines at once: its receipts are looked for more often.
    gateway = await createGateway({
      config: onDevnet ? { ...config, rpc: { ...config.rpc, pollMs: 50 } } : config,
      logger,
      tracing,
    })
  } catch (err) {
    await stopDevnet()
    await stopTracing()
    await flushLogs()
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`${err.message}\n`)
    process.exit(1)
  }

  let shuttingDown = false
  async function shutdown(signal: string) {
    if (shuttingDown) return
    shuttingDown = true
    logger.info({ signal }, 'shutting down')
    await gateway
      .close({ timeoutMs: config.server.shutdownTimeoutMs })
      .catch((err) => logger.error({ err }, 'error while closing the gateway'))
    await stopDevnet()
    await stopTracing()
    logger.info({ signal }, 'stopped')
    await flushLogs()
    process.exit(0)
  }
  // SIGUSR2: a consistent copy of the journal next to it, taken without stopping (the journal file
  // is locked by this process, so outside tools cannot read it while the gateway runs).
  process.on('SIGUSR2', () => {
    const { path } = gateway.journal
    if (path === ':memory:') return void logger.warn('the journal is in memory; there is nothing to back up')
    const destination = path.replace(/(\.sqlite)?$/, `-${new Date().toISOString().replace(/[:.]/g, '-')}.sqlite`)
    gateway.journal.backup(destination).then(
      () => logger.info({ destination }, 'journal backed up'),
      (err: unknown) => logger.error({ err, destination }, 'journal backup failed'),
    )
  })
  // A worker leaves Ctrl-C (SIGINT to the whole process group) to its primary, which stops the
  // workers with SIGTERM: otherwise the primary could see a worker gone first and start another.
  if (worker) process.on('SIGINT', () => undefined)
  else process.once('SIGINT', () => void shutdown('SIGINT'))
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  // A worker whose primary is gone (killed) stops rather than serve on alone.
  if (worker) process.once('disconnect', () => void shutdown('primary gone'))

  try {
    await gateway.app.listen({ host: config.server.host, port: config.server.port, listenTextResolver: () => '' })
    const { port } = gateway.app.server.address() as { port: number }
    if (worker) {
      logger.info(
        { worker: worker.worker, instanceId: config.storage?.instanceId, port },
        `worker ${worker.worker} serving`,
      )
      process.send!({ type: 'listening', worker: worker.worker, port } satisfies WorkerListening)
    } else
      logger.info(
        { host: config.server.host, port, chains: config.chains.map((c) => c.chainId) },
        `Intent Gateway listening on ${config.server.host}:${port}`,
      )
    if (gateway.metricsServer) {
      const { host: metricsHost, port: metricsPort } = config.interfaces.metrics
      await gateway.metricsServer.listen({ host: metricsHost, port: metricsPort!, listenTextResolver: () => '' })
      logger.info(
        { host: metricsHost, port: metricsPort },
        `metrics served on ${metricsHost}:${metricsPort} (GET /metrics only)`,
      )
    }
    await flushLogs()
    if (devnets.length > 0) await printDevnetWelcome(port)
    // Start-up's compiles leave freed native memory resident: given back once they are over, then every so often.
    startNativeHeapTrim({ everyMs: config.process.nativeHeapTrimMs, logger })
  } catch (err) {
    logger.error({ err }, 'could not start listening')
    await gateway.close().catch(() => undefined)
    await stopDevnet()
    await stopTracing()
    await flushLogs()
    process.exit(1)
  }
}

/**
 * The operator's keys, a devnet's runtime's filled by the devnet's relayer key where the operator
 * put none in the process (keys the operator holds in a token or KMS come after it).
 */
function devnetKeys(keys: GatewayConfig['keys'], started: RuntimeDevnet[]): GatewayConfig['keys'] {
  let joined = keys
  for (const { chain, settings } of started) {
    const mine = joined[chain.chainType] ?? []
    if (settings.keys.length > 0 && !mine.some((k) => k.backend === 'local'))
      joined = { ...joined, [chain.chainType]: [...settings.keys, ...mine] }
  }
  return joined
}

/** The operator's runtime options, each one left unset filled by the devnet's of that runtime. */
function devnetOptions(
  options: GatewayConfig['runtimeOptions'],
  started: RuntimeDevnet[],
): GatewayConfig['runtimeOptions'] {
  let joined = options
  for (const { chain, settings } of started) {
    if (!settings.options) continue
    const mine = (joined[chain.chainType] ?? {}) as Record<string, unknown>
    const filled = Object.fromEntries(Object.entries(settings.options).filter(([name]) => mine[name] === undefined))
    joined = { ...joined, [chain.chainType]: { ...mine, ...filled } }
  }
  return joined
}

/** Each devnet prices its own chain: their prices, and their facilitator's keys, joined. Undefined when none prices anything. */
function devnetPayments(started: RuntimeDevnet[]): GatewayConfig['payments'] {
  return started
    .flatMap((d) => (d.settings.payments ? [d.settings.payments] : []))
    .reduce<GatewayConfig['payments']>((a, b) => {
      if (!a) return b
      const facilitator =
        a.facilitator.kind === 'local' && b.facilitator.kind === 'local'
          ? { ...a.facilitator, ...b.facilitator }
          : a.facilitator
      return { ...a, prices: { ...a.prices, ...b.prices }, facilitator }
    }, undefined)
}
