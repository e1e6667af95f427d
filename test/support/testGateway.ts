// Starts a real anvil with the reference contracts and demo data, and gateways listening on real
// ports in front of it. Every e2e test file builds its world through these.
import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import type { EvmOptions } from '../../src/chains/evm/evmOptions.ts'
import { intentTypedData } from '../../src/chains/evm/intentTypedData.ts'
import type { EventStreamsConfig } from '../../src/config/eventStreamsConfig.ts'
import type { ChainConfig } from '../../src/config/gatewayConfig.ts'
import type { InterfacesConfig } from '../../src/config/interfacesConfig.ts'
import type { ExecutionGuardConfig } from '../../src/config/limitsConfig.ts'
import type { OAuthConfig } from '../../src/config/oauthConfig.ts'
import type { PaymentsConfig } from '../../src/config/paymentsConfig.ts'
import type { SignersConfig } from '../../src/config/signersConfig.ts'
import type { StorageConfig } from '../../src/config/storageConfig.ts'
import type { WebhooksConfig } from '../../src/config/webhooksConfig.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { EvmKeySource } from '../../src/ports/keySource.ts'
import type { PostgresSettings } from '../../src/store/postgres/postgresSettings.ts'
import type { SqliteSettings } from '../../src/store/sqlite/sqliteSettings.ts'
import { localKey } from './relayerKeys.ts'
import { testConfig } from './testConfig.ts'

export type TestGateway = Gateway & { baseUrl: string; logs: string[] }

export async function startTestGateway(params: {
  chains: ChainConfig[]
  relayerPrivateKey?: Hex | undefined
  defaultChainId?: string
  receiptTimeoutMs?: number
  bodyLimit?: number
  requestTimeoutMs?: number
  idleTimeoutMs?: number
  maxConnections?: number
  corsOrigins?: string[]
  /** PUBLIC_URL (config/publicUrlConfig.ts). */
  publicUrl?: string
  /** Event stream bounds; default 4 per client, 16 per intent, maxConnections / 4 in all. */
  eventStreams?: Partial<EventStreamsConfig>
  rpcTimeoutMs?: number
  production?: boolean
  chainList?: { url: string; timeoutMs: number; ttlMs: number; cacheFile: string }
  auth?: { keyHashes: Buffer[]; requireForValidate: boolean }
  /** OAuth access tokens beside the API keys (config/oauthConfig.ts: readOAuthConfig). */
  oauth?: OAuthConfig
  rateLimit?: { max: number; windowMs: number }
  /** The storage engines' own settings, over the defaults: `{ sqlite: { path, synchronous } }`, `{ postgres: { url } }`. */
  storageOptions?: { sqlite?: SqliteSettings; postgres?: PostgresSettings }
  reconcileIntervalMs?: number
  requireSignedIntents?: boolean
  maxGasPerExecution?: number
  metricsToken?: string
  payments?: PaymentsConfig
  interfaces?: InterfacesConfig
  confirmations?: number
  maxFeePerGas?: number
  storage?: Partial<StorageConfig>
  validateCache?: boolean
  limits?: ExecutionGuardConfig
  webhooks?: WebhooksConfig
  signers?: SignersConfig
  /** EVM relayer keys held in a token or KMS (relayerKeys.ts), joined to the pool after `relayerPrivateKey`. */
  heldRelayerKeys?: EvmKeySource[]
}): Promise<TestGateway> {
  const logs: string[] = []
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })
  const defaults = testConfig({})
  const relayerKey = 'relayerPrivateKey' in params ? params.relayerPrivateKey : devnetAccounts.relayer
  const evmLocal = relayerKey ? [localKey(relayerKey, 'RELAYER_PRIVATE_KEY')] : []
  const gateway = await createGateway({
    config: testConfig({
      production: params.production ?? false,
      chains: params.chains,
      defaultChainId: params.defaultChainId,
      keys: { evm: [...evmLocal, ...(params.heldRelayerKeys ?? [])] },
      server: {
        bodyLimit: params.bodyLimit ?? 64 * 1024,
        // Every test client is 127.0.0.1: one client may hold every connection.
        maxConnections: params.maxConnections ?? 512,
        maxConnectionsPerClient: params.maxConnections ?? 512,
        eventStreams: {
          maxPerClient: 4,
          maxPerIntent: 16,
          max: Math.floor((params.maxConnections ?? 512) / 4),
          ...params.eventStreams,
        },
        ...defined({
          requestTimeoutMs: params.requestTimeoutMs,
          idleTimeoutMs: params.idleTimeoutMs,
          corsOrigins: params.corsOrigins,
          publicUrl: params.publicUrl,
        }),
      },
      rpc: { timeoutMs: params.rpcTimeoutMs ?? 2_000, pollMs: 20 },
      runtimeOptions: {
        ...defaults.runtimeOptions,
        evm: {
          ...(defaults.runtimeOptions.evm as EvmOptions),
          ...defined({ chainList: params.chainList, validateCache: params.validateCache }),
          // Tests name the ceiling they test; otherwise stuck executions are not re-priced.
          maxFeePerGas: params.maxFeePerGas,
        },
      },
      execution: {
        receiptTimeoutMs: params.receiptTimeoutMs ?? 10_000,
        ...defined({
          maxGasPerExecution: params.maxGasPerExecution,
          reconcileIntervalMs: params.reconcileIntervalMs,
          requireSignedIntents: params.requireSignedIntents,
          confirmations: params.confirmations,
        }),
      },
      ...defined({
        auth: params.auth,
        oauth: params.oauth,
        rateLimit: params.rateLimit,
        storageOptions: params.storageOptions && { ...defaults.storageOptions, ...params.storageOptions },
        payments: params.payments,
        interfaces:
          params.metricsToken === undefined
            ? params.interfaces
            : {
                ...params.interfaces,
                metrics: {
                  ...testConfig({}).interfaces.metrics,
                  ...params.interfaces?.metrics,
                  token: params.metricsToken,
                },
              },
        storage: params.storage,
        limits: params.limits,
        webhooks: params.webhooks,
        signers: params.signers,
      }),
    }),
    logger,
  })
  const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...gateway, baseUrl: address, logs }
}

export type World = {
  devnet: Devnet
  gateway: TestGateway
  clients: ReturnType<typeof createDevClients>
  stop(): Promise<void>
}

export async function startWorld(
  options: { receiptTimeoutMs?: number; reconcileIntervalMs?: number; rpcTimeoutMs?: number; statePath?: string } = {},
): Promise<World> {
  const { statePath, ...gatewayOptions } = options
  const devnet = await startDevnet(statePath ? { statePath } : {})
  try {
    const gateway = await startTestGateway({ chains: [devnet.chain], ...gatewayOptions })
    const clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    return {
      devnet,
      gateway,
      clients,
      async stop() {
        await gateway.close()
        await devnet.stop()
      },
    }
  } catch (err) {
    await devnet.stop()
    throw err
  }
}

/** A valid intent body for the demo sender under the open policy; override any field. */
export function demoIntent(devnet: Devnet, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sender: devnet.demo.sender,
    target: devnet.demo.counter,
    data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
    value: '0',
    nonce: '0',
    validAfter: '0',
    validBefore: '0',
    policyId: devnet.demo.policies.open,
    ...overrides,
  }
}

/**
 * The body with the EIP-712 signature of `key` (the demo sender by default) for the devnet's
 * executor added; a body that carries a signature already is returned as it is.
 */
export async function signIntent(
  devnet: Devnet,
  body: Record<string, unknown>,
  key: Hex = devnetAccounts.sender,
  domain: { chainId?: number; executor?: Address } = {},
): Promise<Record<string, unknown>> {
  if (body.signature !== undefined) return body
  const b = body as Record<string, string>
  const intent = {
    sender: b.sender!,
    target: b.target!,
    data: b.data as Hex,
    value: BigInt(b.value!),
    nonce: BigInt(b.nonce!),
    validAfter: BigInt(b.validAfter ?? '0'),
    validBefore: BigInt(b.validBefore ?? '0'),
    policyId: b.policyId as Hex,
  }
  const typedData = intentTypedData({
    chainId: domain.chainId ?? devnet.anvil.chainId,
    executor: domain.executor ?? devnet.contracts.executor,
    intent,
  })
  const signature = await privateKeyToAccount(key).signTypedData(typedData)
  return { ...body, signature }
}

/** demoIntent, signed by the demo sender. */
export function signedIntent(
  devnet: Devnet,
  overrides: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return signIntent(devnet, demoIntent(devnet, overrides))
}

export const oneEther = parseEther('1')

export type HttpResult = { status: number; headers: Headers; body: any; text: string }

export async function post(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return request(baseUrl, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

export async function request(baseUrl: string, path: string, init: RequestInit = {}): Promise<HttpResult> {
  const res = await fetch(`${baseUrl}${path}`, init)
  const text = await res.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: res.status, headers: res.headers, body, text }
}

/** Snapshot the chain before each test and revert after it, so tests do not see each other. */
export async function snapshot(rpcUrl: string): Promise<() => Promise<void>> {
  const id = await rpc(rpcUrl, 'evm_snapshot', [])
  return async () => {
    await rpc(rpcUrl, 'evm_revert', [id])
  }
}

export async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

/** The entries whose value is set (a test that leaves a setting out gets the default). */
function defined<T extends Record<string, unknown>>(values: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>
  }>
}
