// A Solana devnet (LiteSVM behind its JSON-RPC front, in a child process) and the HTTP app in
// front of it, built the way production builds it: buildApp over a registry of real adapters.
import type { Address } from '@solana/kit'
import { buildApp } from '../../src/app.ts'
import { createSolanaAdapter } from '../../src/chains/solana/createSolanaAdapter.ts'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import type { SolanaOptions } from '../../src/chains/solana/solanaOptions.ts'
import { createSolanaRuntime } from '../../src/chains/solana/solanaRuntime.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { RpcRecorder } from '../../src/metrics/createMetrics.ts'
import type { ChainAdapter } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { runtimes } from '../../src/runtimes.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { testConfig } from './testConfig.ts'

export type SolanaGateway = {
  baseUrl: string
  logs: string[]
  adapters: ChainAdapter[]
  journal: Journal
  close(): Promise<void>
}

const logs: string[] = []
export const quietLogger = createLogger({
  level: 'info',
  destination: { write: (line: string) => void logs.push(line) },
})

export function solanaAdapterFor(
  devnet: SolanaDevnet,
  overrides: {
    rpcUrls?: string[]
    programId?: Address
    config?: Address
    rpcTimeoutMs?: number
    simulationFeePayer?: Address | null
    relayer?: boolean
    options?: Partial<SolanaOptions>
    rpcRecorder?: RpcRecorder
  } = {},
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
    simulationFeePayer:
      overrides.simulationFeePayer === null ? undefined : (overrides.simulationFeePayer ?? devnet.simulationFeePayer),
    relayerSecretKey: overrides.relayer ? devnet.relayerSecretKey : undefined,
    confirmationPollMs: 20,
    options: overrides.options,
    rpcRecorder: overrides.rpcRecorder,
  })
}

export async function startSolanaGateway(
  adapters: ChainAdapter[],
  {
    journal = openJournal({ path: ':memory:' }),
    requireSignature,
  }: { journal?: Journal; requireSignature?: boolean } = {},
): Promise<SolanaGateway> {
  const config = testConfig({ execution: { receiptTimeoutMs: 5_000, requireSignedIntents: requireSignature ?? false } })
  const app = buildApp(config, {
    registry: createChainRegistry({ adapters, defaultChainId: undefined }),
    journal,
    logger: quietLogger,
    runtimes,
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

/**
 * The demo sender's intents on a Solana devnet (read when called, so it may be started later), each
 * with the next nonce from `firstNonce`, and their hash and signature as the program checks them.
 */
export function demoIntents(devnetOf: () => SolanaDevnet, firstNonce: bigint) {
  let nonce = firstNonce
  const intent = (overrides: Partial<Intent> = {}): Intent => {
    const devnet = devnetOf()
    return {
      sender: devnet.demo.sender,
      target: devnet.demo.target,
      data: '0x00cafe',
      value: 1_000n,
      nonce: nonce++,
      validAfter: 0n,
      validBefore: 0n,
      policyId: devnet.demo.policies.open,
      accounts: [{ address: devnet.demo.recipient, signer: false, writable: true }],
      ...overrides,
    }
  }
  const hashOf = (i: Intent) =>
    createSolanaRuntime({ programId: devnetOf().programId, config: devnetOf().config }).hashIntent(i)
  const sign = (i: Intent, seed = devnetOf().demo.senderSecretKey) =>
    `0x${Buffer.from(ed25519Seed.sign(seed, Buffer.from(hashOf(i).slice(2), 'hex'))).toString('hex')}` as const
  return { intent, hashOf, sign }
}

/**
 * What the fee payer of an account-mode transaction pays, read from its journal record: two
 * signatures (the relayer's and the agent's) at 5,000 lamports and the priority fee it chose
 * (compute-unit limit × price in micro-lamports, rounded up). Undefined when the record is not an
 * account-mode transaction.
 */
export async function accountModeFeeOf(
  journal: Journal,
  intentHash: `0x${string}`,
  chainId: string,
): Promise<bigint | undefined> {
  const details = (await journal.get(intentHash, chainId))?.transaction?.details as
    | { mode?: string; computeUnitLimit: string; computeUnitPrice: string }
    | undefined
  if (details?.mode !== 'account') return undefined
  return 10_000n + (BigInt(details.computeUnitLimit) * BigInt(details.computeUnitPrice) + 999_999n) / 1_000_000n
}
