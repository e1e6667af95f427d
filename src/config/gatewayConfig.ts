// The gateway's configuration as loadConfig returns it (config/loadConfig.ts reads it from the
// environment; main.ts passes it to createGateway).
import type { ChainType } from '../ports/chainId.ts'
import type { KeySource } from '../ports/keySource.ts'
import type { EventStreamsConfig } from './eventStreamsConfig.ts'
import type { InterfacesConfig } from './interfacesConfig.ts'
import type { ExecutionGuardConfig } from './limitsConfig.ts'
import type { OAuthConfig } from './oauthConfig.ts'
import type { OpsConfig } from './opsConfig.ts'
import type { PaymentsConfig } from './paymentsConfig.ts'
import type { SignersConfig } from './signersConfig.ts'
import type { StorageConfig } from './storageConfig.ts'
import type { WebhooksConfig } from './webhooksConfig.ts'

export type ChainConfig = {
  /** Canonical CAIP-2 id, e.g. `eip155:84532`. */
  chainId: string
  chainType: ChainType
  /** The id within its namespace (`84532`). */
  reference: string
  /** From RPC_URLS; empty when the endpoints are to be discovered (EVM only). */
  rpcUrls: string[]
  /** Addresses in the runtime's own form: EVM 0x + 40 hex, Solana base58 (program id, config account), Sui 0x + 64 hex (package, hub). */
  executor: string
  validator: string
  registry: string
  /**
   * ACCOUNT_DELEGATE_ADDRESSES: the IntentAccount an EOA delegates to with EIP-7702 for account
   * mode (`mode: "account"`); absent: the chain serves executor mode only.
   */
  accountDelegate?: string | undefined
  /**
   * BUNDLER_ADDRESSES (EVM): the IntentBundler a relayer key's executions are sent through, several
   * in one transaction (relayer/sendBundled.ts); absent: one transaction an execution.
   */
  bundler?: string | undefined
}

/**
 * The gateway's one configuration type, grouped by concern. loadConfig reads it from the
 * environment, and its fallbacks are the defaults, in one place: tests take `loadConfig({})` (the
 * defaults) and override the groups they need (test/support/testConfig.ts); createGateway adds no
 * defaults of its own.
 */
export type GatewayConfig = {
  /** NODE_ENV is production: stricter checks, public endpoints only. */
  production: boolean
  /** The process: NODE_ENV, log level, the embedded devnet, the heap, worker processes. */
  process: ProcessConfig
  /** The HTTP server and its connections. */
  server: ServerConfig
  /** The chains served (empty on the devnet until its chains start) and the default one. */
  chains: ChainConfig[]
  defaultChainId: string | undefined
  /** How the chains' nodes are read. */
  rpc: RpcConfig
  /** Each runtime's relayer keys by chain type, wherever they live (in the process, a token, KMS). */
  keys: KeysConfig
  /** The x402 facilitator's keys held outside the process (config/signersConfig.ts). */
  signers: SignersConfig
  /** How executions are sent and followed. */
  execution: ExecutionConfig
  /** Who may call: API keys. */
  auth: AuthConfig
  /** OAuth 2.1 access tokens accepted beside the API keys (config/oauthConfig.ts); undefined: none (OAUTH_ISSUER unset). */
  oauth: OAuthConfig | undefined
  /** Requests per window per client (API key, else address); 0 turns the limit off. */
  rateLimit: { max: number; windowMs: number }
  /** Standing after on-chain reverts and the spend budgets: config/limitsConfig.ts. */
  limits: ExecutionGuardConfig
  /** Shared rate limits (Redis), the instance's name, retention, the leases' term: config/storageConfig.ts. */
  storage: StorageConfig
  /**
   * Each storage engine's own settings, by its name, in the shape it reads (`StorageEngine.readSettings`
   * writes them, its `open` reads them back; config/storageEngine.ts): the SQLite journal's file
   * (store/sqlite/sqliteSettings.ts), the PostgreSQL URL when set (store/postgres/postgresSettings.ts).
   * The first engine of src/storageEngines.ts with settings here opens.
   */
  storageOptions: Record<string, unknown>
  /** x402 prices, facilitator and who pays (config/paymentsConfig.ts); undefined: nothing is priced. */
  payments: PaymentsConfig | undefined
  /** Signed webhooks of execution events (config/webhooksConfig.ts); undefined: none. */
  webhooks: WebhooksConfig | undefined
  /** The operator's console and its switches (config/opsConfig.ts); undefined: off (no OPS_API_KEYS, no OAuth). */
  ops?: OpsConfig | undefined
  /** Metrics (on or off, their own port, the token) and the MCP server: config/interfacesConfig.ts. */
  interfaces: InterfacesConfig
  /**
   * Each runtime's own settings beyond its relayer keys, by chain type, in the shape its module
   * reads (`RuntimeModule.readSettings` writes them, its `createChains` reads them back): EVM's
   * chain list, Multicall3, validate cache, simulation gathering and re-pricing ceiling
   * (chains/evm/evmOptions.ts), Solana's priority-fee ceiling and simulation fee payer (chains/solana/solanaOptions.ts).
   */
  runtimeOptions: Record<string, unknown>
}

export type ProcessConfig = {
  nodeEnv: string
  logLevel: string
  /** True when nothing is configured and the gateway should start its embedded devnet. */
  devnet: boolean
  /**
   * How far (percent) V8 lets the JavaScript heap grow past what the last full collection kept
   * before the next one (HEAP_GROWING_PERCENT, default 50; 0: V8's own, which lets it grow several times over).
   */
  heapGrowingPercent: number
  /**
   * How often native memory freed but still resident is given back (glibc's malloc_trim; NATIVE_HEAP_TRIM_MS,
   * default 10000, the first 5 s after listening; 0: never). config/trimNativeHeap.ts.
   */
  nativeHeapTrimMs: number
  /** WORKERS: worker processes serving the one port (config/workersConfig.ts); 1 is one process. */
  workers: number
}

export type ServerConfig = {
  host: string
  port: number
  bodyLimit: number
  /** How long a client may take to send a whole request before 408. */
  requestTimeoutMs: number
  /** How long a connection with no request in progress (before its first, between keep-alive requests) stays open. */
  idleTimeoutMs: number
  /** How long SIGTERM waits for requests in flight before cutting them. */
  shutdownTimeoutMs: number
  /** How many client connections may be open at once; more are refused at accept. */
  maxConnections: number
  /** How many of those one client address (an IPv6 client by its /64) may hold; a trusted proxy's are not capped. */
  maxConnectionsPerClient: number
  /** Proxies (IPs, CIDRs) whose X-Forwarded-For names the client (TRUSTED_PROXIES); empty: none. */
  trustedProxies: string[]
  /** Browser origins allowed to call the gateway (CORS); empty: no CORS headers at all. `*` allows any. */
  corsOrigins: string[]
  /**
   * PUBLIC_URL: the origin clients reach the gateway at; the base of x402 resource URLs and
   * discovery, and the host and origin /mcp serves (config/publicUrlConfig.ts). Undefined outside
   * production when unset: then http://127.0.0.1:<port>, and local hosts only.
   */
  publicUrl: string | undefined
  /** Event streams one client, one intent and all clients may hold (config/eventStreamsConfig.ts). */
  eventStreams: EventStreamsConfig
}

export type RpcConfig = {
  timeoutMs: number
  /** How often the block watch reads each chain's head while executions wait for their receipts (RECEIPT_POLL_MS). */
  pollMs: number
}

/**
 * The relayer keys, by chain type: where each lives (a KeySource: in the process, read by the
 * runtime's `readSettings`, whose `secret` is in the runtime's own form; in a token or KMS, read
 * by config/signersConfig.ts), in the order the runtime uses them. Its `createChains` opens them;
 * absent or empty: that runtime has none, and its chains validate only.
 */
export type KeysConfig = Partial<Record<ChainType, readonly KeySource<unknown>[]>>

export type ExecutionConfig = {
  /** How long an execute waits for its receipt before 202. */
  receiptTimeoutMs: number
  /** How long an Idempotency-Key of execute is kept (IDEMPOTENCY_KEY_TTL_HOURS, config/idempotencyConfig.ts); default 24 hours. */
  idempotencyKeyTtlMs?: number | undefined
  /** How often unsettled journal records are checked against their chain. */
  reconcileIntervalMs: number
  /** Blocks deep (1 = in the latest block) before an execution is reported final (CONFIRMATIONS). */
  confirmations: number
  /** The most gas the relayer pays for one execution; above it, 422 (0x06). */
  maxGasPerExecution: number
  /** Refuse unsigned execute requests at once (401, 0xE5): production, unless ALLOW_UNSIGNED_INTENTS. */
  requireSignedIntents: boolean
}

export type AuthConfig = {
  /** SHA-256 hashes of the API keys; the keys themselves are not kept. */
  keyHashes: Buffer[]
  /** Whether validate needs a credential too, an API key or an OAuth token (execute always does once either is configured). */
  requireForValidate: boolean
}

export type Env = Record<string, string | undefined>
