// Entry point: read the configuration (starting the embedded devnet when nothing is configured
// outside production), build the gateway, listen, and shut everything down on SIGINT/SIGTERM.
import { existsSync } from 'node:fs'
import { limitHeapGrowth } from './config/limitHeapGrowth.ts'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import type { RuntimeDevnet } from './config/runtimeModule.ts'
import { loadConfig, runtimes } from './runtimes.ts'
import { createGateway } from './createGateway.ts'
import { hashApiKey } from './auth/createApiKeyCheck.ts'
import { devnetApiKey } from './config/devnetApiKey.ts'
import { ConfigError } from './errors/configError.ts'
import { createLogger } from './logging/createLogger.ts'

if (existsSync('.env')) process.loadEnvFile('.env') // never overrides what the environment already says

let config: GatewayConfig
try {
  config = loadConfig(process.env)
} catch (err) {
  if (!(err instanceof ConfigError)) throw err
  process.stderr.write(`${err.message}\n`)
  process.exit(1)
}

limitHeapGrowth(config.heapGrowingPercent)

const logger = createLogger({ level: config.logLevel })

/** Waits until buffered log lines are written: logs are asynchronous (see createLogger). */
const flushLogs = () => new Promise<void>((resolve) => logger.flush(() => resolve()))
// Buffered lines reach the output within a second even when traffic is low.
setInterval(() => logger.flush(), 1000).unref()

/** The devnet chains started, one per runtime that has one, stopped on the way out. */
let devnets: RuntimeDevnet[] = []
const stopDevnet = async () => {
  await Promise.allSettled(devnets.map((d) => d.stop()))
}
if (config.devnet) {
  const starters = runtimes.flatMap((r) => (r.devnet ? [r.devnet] : []))
  process.stdout.write(`No chain is configured and NODE_ENV is not production: starting the embedded devnet (${starters.map((d) => d.name).join(' and ')})...\n`)
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
  }
  // What the devnet supplies (its relayer keys, its prices) fills only what the operator left unset.
  const operatorPriced = config.payments !== undefined
  for (const { settings } of devnets) {
    for (const [name, value] of Object.entries(settings) as [keyof GatewayConfig, unknown][]) {
      const mine = config[name]
      if (mine === undefined || (Array.isArray(mine) && mine.length === 0)) config = { ...config, [name]: value }
      // Each devnet prices its own chain: the prices and the facilitator's keys of both are joined.
      else if (name === 'payments' && !operatorPriced) config = { ...config, payments: joinDevnetPayments(config.payments!, value as NonNullable<GatewayConfig['payments']>) }
    }
  }
}

let gateway: Awaited<ReturnType<typeof createGateway>>
try {
  gateway = await createGateway({ config: { ...config, pollingIntervalMs: devnets.length > 0 ? 50 : config.receiptPollMs }, logger })
} catch (err) {
  await stopDevnet()
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
  await gateway.close({ timeoutMs: config.shutdownTimeoutMs }).catch((err) => logger.error({ err }, 'error while closing the gateway'))
  await stopDevnet()
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
process.once('SIGINT', () => void shutdown('SIGINT'))
process.once('SIGTERM', () => void shutdown('SIGTERM'))

try {
  await gateway.app.listen({ host: config.host, port: config.port, listenTextResolver: () => '' })
  const { port } = gateway.app.server.address() as { port: number }
  logger.info({ host: config.host, port, chains: config.chains.map((c) => c.chainId) }, `Intent Gateway listening on ${config.host}:${port}`)
  if (gateway.metricsServer) {
    const { host: metricsHost, port: metricsPort } = config.interfaces.metrics
    await gateway.metricsServer.listen({ host: metricsHost, port: metricsPort!, listenTextResolver: () => '' })
    logger.info({ host: metricsHost, port: metricsPort }, `metrics served on ${metricsHost}:${metricsPort} (GET /metrics only)`)
  }
  await flushLogs()
  if (devnets.length > 0) {
    const baseUrl = `http://127.0.0.1:${port}`
    const parts = await Promise.all(devnets.map((d) => d.describe({ baseUrl, apiKey: devnetApiKey })))
    process.stdout.write(['', `Intent Gateway is running on its embedded devnet at ${baseUrl} (listening on ${config.host}:${port}).`, ...parts.flatMap((p) => [p, '']), 'Press Ctrl-C to stop the gateway and the devnet.', ''].join('\n'))
  }
} catch (err) {
  logger.error({ err }, 'could not start listening')
  await gateway.close().catch(() => undefined)
  await stopDevnet()
  await flushLogs()
  process.exit(1)
}

function joinDevnetPayments(a: NonNullable<GatewayConfig['payments']>, b: NonNullable<GatewayConfig['payments']>): NonNullable<GatewayConfig['payments']> {
  const facilitator = a.facilitator.kind === 'local' && b.facilitator.kind === 'local' ? { ...a.facilitator, ...b.facilitator } : a.facilitator
  return { ...a, prices: { ...a.prices, ...b.prices }, facilitator }
}
