// A Solana devnet (LiteSVM behind its JSON-RPC front, in a child process) and the HTTP app in
// front of it, built the way production builds it: buildApp over a registry of real adapters.
import type { Address } from '@solana/kit'
import { buildApp } from '../../src/app.ts'
import type { ChainAdapter } from '../../src/ports/chainAdapter.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { createSolanaAdapter } from '../../src/chains/solana/createSolanaAdapter.ts'
import type { SolanaOptions } from '../../src/chains/solana/solanaOptions.ts'
import type { RpcRecorder } from '../../src/metrics/createMetrics.ts'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { createLogger } from '../../src/logging/createLogger.ts'

export type SolanaGateway = { baseUrl: string; logs: string[]; adapters: ChainAdapter[]; journal: Journal; close(): Promise<void> }

const logs: string[] = []
export const quietLogger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })

export function solanaAdapterFor(
  devnet: SolanaDevnet,
  overrides: { rpcUrls?: string[]; programId?: Address; config?: Address; rpcTimeoutMs?: number; simulationFeePayer?: Address | null; relayer?: boolean; options?: Partial<SolanaOptions>; rpcRecorder?: RpcRecorder } = {},
) {
  return createSolanaAdapter({
    chain: {
      chainId: devnet.chainId,
      reference: devnet.reference,
      rpcUrls: overrides.rpcUrls ?? [devnet.rpcUrl],
      programId: overrides.programId ?? devnet.programId,
      config: overrides.config ?? devnet.config,
    },
    rpcTimeoutMs: overrides.rpcTimeoutMs ?? 2_000,
    logger: quietLogger,
    simulationFeePayer: overrides.simulationFeePayer === null ? undefined : (overrides.simulationFeePayer ?? devnet.simulationFeePayer),
    relayerSecretKey: overrides.relayer ? devnet.relayerSecretKey : undefined,
    confirmationPollMs: 20,
    options: overrides.options,
    rpcRecorder: overrides.rpcRecorder,
  })
}

export async function startSolanaGateway(adapters: ChainAdapter[], { journal = openJournal({ path: ':memory:' }), requireSignature }: { journal?: Journal; requireSignature?: boolean } = {}): Promise<SolanaGateway> {
  const app = buildApp({
    registry: createChainRegistry({ adapters, defaultChainId: undefined }),
    journal,
    logger: quietLogger,
    bodyLimit: 64 * 1024,
    receiptTimeoutMs: 5_000,
    requireSignedIntents: requireSignature ?? false,
  })
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    baseUrl,
    logs,
    adapters,
    journal,
    async close() {
      await app.close()
      journal.close()
    },
  }
}

export { startSolanaDevnet }
