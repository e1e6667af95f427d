// Entry point: read the configuration (starting the embedded devnet when nothing is configured
// outside production), build the gateway, listen, and shut everything down on SIGINT/SIGTERM.
import { existsSync } from 'node:fs'
import { formatEther } from 'viem'
import { limitHeapGrowth } from './config/limitHeapGrowth.ts'
import { type GatewayConfig, loadConfig } from './config/loadConfig.ts'
import { createGateway } from './createGateway.ts'
import { hashApiKey } from './auth/createApiKeyCheck.ts'
import { devnetAccounts } from './chains/evm/devnet/devnetAccounts.ts'
import { devnetApiKey } from './config/devnetApiKey.ts'
import type { Devnet } from './chains/evm/devnet/startDevnet.ts'
import type { SolanaDevnet } from './chains/solana/devnet/startSolanaDevnet.ts'
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

let devnet: Devnet | undefined
let solana: SolanaDevnet | undefined
/** Stops whichever devnet chains are running. */
const stopDevnet = async () => {
  await Promise.all([devnet?.stop(), solana?.stop()])
}
if (config.devnet) {
  process.stdout.write('No chain is configured and NODE_ENV is not production: starting the embedded devnet (anvil and a LiteSVM Solana chain)...\n')
  // The devnet's modules (LiteSVM, Solana's SDK, the demo) are loaded only here, never in production.
  const [{ startDevnet }, { startSolanaDevnet }] = await Promise.all([import('./chains/evm/devnet/startDevnet.ts'), import('./chains/solana/devnet/startSolanaDevnet.ts')])
  const [evm, sol] = await Promise.allSettled([startDevnet(), startSolanaDevnet()])
  if (evm.status === 'rejected' || sol.status === 'rejected') {
    // One may have started: stop what did, then fail.
    await Promise.allSettled([evm.status === 'fulfilled' && evm.value.stop(), sol.status === 'fulfilled' && sol.value.stop()])
    throw evm.status === 'rejected' ? evm.reason : (sol as PromiseRejectedResult).reason
  }
  devnet = evm.value
  solana = sol.value
  config = {
    ...config,
    chains: [
      devnet.chain,
      { chainId: solana.chainId, chainType: 'solana', reference: solana.reference, rpcUrls: [solana.rpcUrl], executor: solana.programId, validator: solana.programId, registry: solana.config },
    ],
    defaultChainId: devnet.chain.chainId,
    relayerPrivateKey: config.relayerPrivateKey ?? devnetAccounts.relayer,
    solanaSimulationFeePayer: solana.simulationFeePayer,
    solanaRelayerPrivateKey: config.solanaRelayerPrivateKey ?? solana.relayerSecretKey,
    // Execute is priced in DemoDollar; the printed commands carry the devnet's API key, which is not charged.
    payments: config.payments ?? devnet.payments,
    auth: config.auth.keyHashes.length > 0 ? config.auth : { ...config.auth, keyHashes: [hashApiKey(devnetApiKey)] },
  }
}

let gateway: Awaited<ReturnType<typeof createGateway>>
try {
  gateway = await createGateway({ config: { ...config, pollingIntervalMs: devnet ? 50 : config.receiptPollMs }, logger })
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
  if (devnet) {
    const [{ demoCommands }, { solanaDemoCommands }] = await Promise.all([import('./chains/evm/devnet/demoCommands.ts'), import('./chains/solana/devnet/solanaDemoCommands.ts')])
    const baseUrl = `http://127.0.0.1:${port}`
    process.stdout.write(
      [
        '',
        `Intent Gateway is running on its embedded devnet at ${baseUrl} (listening on ${config.host}:${port}).`,
        `Devnet: anvil ${devnet.anvil.rpcUrl}, chain ${devnet.chain.chainId}`,
        `Contracts: validator ${devnet.contracts.validator}, executor ${devnet.contracts.executor}, registry ${devnet.contracts.registry}, demo counter ${devnet.contracts.counter}`,
        `Demo sender ${devnet.demo.sender} has deposited ${formatEther(devnet.demo.deposit)} ETH; its policies: open ${devnet.demo.policies.open}, mainnet-only ${devnet.demo.policies.mainnetOnly}`,
        `x402: execute costs 0.01 DemoDollar (${devnet.contracts.dollar}) paid to ${devnet.demo.payment.payTo}; the demo payer ${devnet.demo.payment.payer} holds 1000. Devnet API key (not charged): ${devnetApiKey}`,
        '',
        `Devnet: Solana (LiteSVM behind a JSON-RPC front) ${solana!.rpcUrl}, chain ${solana!.chainId}`,
        `Program ${solana!.programId}, config account ${solana!.config}; demo sender ${solana!.demo.sender}`,
        '',
        'Try these (EVM):',
        '',
        await demoCommands({
          baseUrl,
          chainId: devnet.chain.reference,
          executor: devnet.contracts.executor,
          senderKey: devnetAccounts.sender,
          demo: devnet.demo,
          apiKey: devnetApiKey,
          price: { network: devnet.chain.chainId, asset: devnet.contracts.dollar, label: '0.01 DemoDollar' },
        }),
        'And these (Solana):',
        '',
        solanaDemoCommands({ baseUrl, devnet: solana!, apiKey: devnetApiKey }),
        'Press Ctrl-C to stop the gateway and the devnet.',
        '',
      ].join('\n'),
    )
  }
} catch (err) {
  logger.error({ err }, 'could not start listening')
  await gateway.close().catch(() => undefined)
  await stopDevnet()
  await flushLogs()
  process.exit(1)
}
