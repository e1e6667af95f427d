// Tries the Solana room on its own until the lead wires it into `npm start`: starts the Solana
// devnet and a gateway serving only that chain, and prints the demo commands.
// Run: npx tsx scripts/solanaDevnetDemo.ts [port]
import { buildApp } from '../src/app.ts'
import { createChainRegistry } from '../src/chains/createChainRegistry.ts'
import { createSolanaAdapter } from '../src/chains/solana/createSolanaAdapter.ts'
import { solanaDemoCommands } from '../src/devnet/solana/solanaDemoCommands.ts'
import { startSolanaDevnet } from '../src/devnet/solana/startSolanaDevnet.ts'
import { openJournal } from '../src/journal/openJournal.ts'
import { createLogger } from '../src/logging/createLogger.ts'

const port = Number(process.argv[2] ?? 8080)
const logger = createLogger({ level: 'warn' })
const devnet = await startSolanaDevnet()
const adapter = createSolanaAdapter({
  chain: { chainId: devnet.chainId, reference: devnet.reference, rpcUrls: [devnet.rpcUrl], programId: devnet.programId, config: devnet.config },
  rpcTimeoutMs: 5_000,
  logger,
  simulationFeePayer: devnet.simulationFeePayer,
})
const preflight = await adapter.preflight()
if (!preflight.ok) throw new Error(`preflight failed: ${JSON.stringify(preflight)}`)
const journal = openJournal({ path: ':memory:' })
const app = buildApp({ registry: createChainRegistry({ adapters: [adapter], defaultChainId: undefined }), journal, logger, bodyLimit: 64 * 1024, receiptTimeoutMs: 10_000 })
await app.listen({ host: '127.0.0.1', port })
const baseUrl = `http://127.0.0.1:${port}`
process.stdout.write(
  [
    `Solana devnet: LiteSVM JSON-RPC ${devnet.rpcUrl}, chain ${devnet.chainId}`,
    `Program ${devnet.programId}, config ${devnet.config}; demo sender ${devnet.demo.sender} (vault ${devnet.demo.vaultLamports} lamports)`,
    '',
    solanaDemoCommands({ baseUrl, devnet }),
    '',
  ].join('\n'),
)
const stop = async () => {
  await app.close()
  journal.close()
  await devnet.stop()
  process.exit(0)
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
