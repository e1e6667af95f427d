// A gateway app serving one Sui chain through the real SDK client against the local stand-in, with
// an in-memory journal: what the Sui e2e tests build. No Move code runs (none can here).

import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { createSuiAdapter } from '../../src/chains/sui/createSuiAdapter.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { ChainAdapter } from '../../src/ports/chainAdapter.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { runtimes } from '../../src/runtimes.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { eventually } from './eventually.ts'
import { type SuiStandIn, startSuiStandIn } from './suiStandIn.ts'
import { testConfig } from './testConfig.ts'
import type { HttpResult } from './testGateway.ts'

export const suiRelayer = Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(3))
export const suiSender = Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(9))

export type SuiWorld = {
  standIn: SuiStandIn
  adapter: ChainAdapter
  journal: Journal
  app: FastifyInstance
  logs: string[]
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResult>
  get(path: string): Promise<HttpResult>
  stop(): Promise<void>
}

export async function startSuiWorld({
  rpcTimeoutMs = 300,
  receiptTimeoutMs = 1_000,
}: {
  rpcTimeoutMs?: number
  receiptTimeoutMs?: number
} = {}): Promise<SuiWorld> {
  const standIn = await startSuiStandIn({ relayer: suiRelayer.toSuiAddress() })
  const logs: string[] = []
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })
  const adapter = createSuiAdapter({
    chain: { chainId: 'sui:localnet', rpcUrl: standIn.url, packageId: standIn.packageId, hubId: standIn.hubId },
    relayerSecretKey: suiRelayer.getSecretKey(),
    rpcTimeoutMs,
    logger,
  })
  const journal = openJournal({ path: ':memory:' })
  const app = buildApp(testConfig({ execution: { receiptTimeoutMs } }), {
    registry: createChainRegistry({ adapters: [adapter], defaultChainId: undefined }),
    journal,
    logger,
    runtimes,
  })
  await app.ready()
  // The first call opens the gRPC connection and loads the SDK's code paths, which can take longer
  // than the short RPC deadline the tests use when the machine is busy (other test files beside
  // this one): made here, retried until the stand-in answers, and left out of its call log.
  await eventually('the Sui stand-in to answer', 20_000, async () =>
    (await adapter.getHealth()).reachable ? true : undefined,
  )
  standIn.calls.length = 0
  const toResult = (res: { statusCode: number; headers: Record<string, unknown>; body: string }): HttpResult => {
    const headers = new Headers()
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, String(v))
    let body: unknown
    try {
      body = JSON.parse(res.body)
    } catch {
      body = undefined
    }
    return { status: res.statusCode, headers, body, text: res.body }
  }
  return {
    standIn,
    adapter,
    journal,
    app,
    logs,
    async post(path, body, headers = { 'x-chain-id': 'sui:localnet' }) {
      return toResult(
        await app.inject({
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/json', ...headers },
          payload: JSON.stringify(body),
        }),
      )
    },
    async get(path) {
      return toResult(await app.inject({ method: 'GET', url: path }))
    },
    async stop() {
      await app.close()
      await adapter.close()
      journal.close()
      await standIn.close()
    },
  }
}
