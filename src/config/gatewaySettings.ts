// What createGateway is built from: GatewayConfig's values (loadConfig reads them from the
// environment), most of them optional with the defaults tests use. main.ts passes the whole
// GatewayConfig; tests pass the parts they need.
import type { Hex } from 'viem'
import type { GatewayConfig } from './gatewayConfig.ts'
import type { ExecutionGuardConfig } from './limitsConfig.ts'
import type { InterfacesConfig } from './interfacesConfig.ts'
import type { PaymentsConfig } from './paymentsConfig.ts'
import type { SignersConfig } from './signersConfig.ts'
import type { StorageConfig } from './storageConfig.ts'
import type { WebhooksConfig } from './webhooksConfig.ts'

export type GatewaySettings = Pick<GatewayConfig, 'chains' | 'defaultChainId' | 'relayerPrivateKey' | 'bodyLimit' | 'receiptTimeoutMs' | 'rpcTimeoutMs' | 'production'> & {
  /** The Sui relayer's key (`suiprivkey1…`); without it, Sui chains validate only. */
  suiRelayerPrivateKey?: string | undefined
  /** A funded Solana account named as fee payer of validate simulations (nothing is paid). */
  solanaSimulationFeePayer?: string | undefined
  /** The Solana relayer's 32-byte seed; without it, Solana chains validate only. */
  solanaRelayerPrivateKey?: Uint8Array | undefined
  /** x402 prices and the facilitator; without them nothing is priced. */
  payments?: PaymentsConfig | undefined
  /** Metrics and MCP settings; default: metrics on the API's port, MCP on. */
  interfaces?: InterfacesConfig | undefined
  chainList?: GatewayConfig['chainList'] | undefined
  auth?: GatewayConfig['auth'] | undefined
  rateLimit?: GatewayConfig['rateLimit'] | undefined
  pollingIntervalMs?: number
  /** Defaults to an in-memory journal (tests). */
  journal?: GatewayConfig['journal'] | undefined
  /** The journal in PostgreSQL, rate limits in Redis, the instance's name; default: none shared. */
  storage?: StorageConfig | undefined
  /** A pool of EVM relayer keys (RELAYER_PRIVATE_KEY and RELAYER_PRIVATE_KEYS); default: `relayerPrivateKey` alone. */
  relayerPrivateKeys?: Hex[] | undefined
  reconcileIntervalMs?: number | undefined
  requestTimeoutMs?: number | undefined
  idleTimeoutMs?: number | undefined
  maxConnections?: number | undefined
  /** Connections one client address may hold (MAX_CONNECTIONS_PER_CLIENT); default: maxConnections. */
  maxConnectionsPerClient?: number | undefined
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); default: none. */
  trustedProxies?: string[] | undefined
  corsOrigins?: string[] | undefined
  /** Refuse unsigned executes at once (401, 0xE5); default false: the chain decides. */
  requireSignedIntents?: boolean | undefined
  /** The most gas the relayer pays for one execution; default: no cap (tests). */
  maxGasPerExecution?: number | undefined
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  metricsToken?: string | undefined
  /** Blocks deep before an execution is final (CONFIRMATIONS); default 1. */
  confirmations?: number | undefined
  /** The fee ceiling (wei per gas) for re-pricing stuck executions (MAX_FEE_PER_GAS_GWEI); default: no re-pricing. */
  maxFeePerGas?: number | undefined
  /** Fold concurrent validator reads into Multicall3 where a chain has it (MULTICALL); default true. */
  multicall?: boolean | undefined
  /** Keep validator answers for the block they were read on (VALIDATE_CACHE); default false. */
  validateCache?: boolean | undefined
  /** Relayer keys in KMS, joined to the pool with the local keys; default: none. */
  signers?: SignersConfig | undefined
  /** Signed webhooks of execution events; default: none. */
  webhooks?: WebhooksConfig | undefined
  /** Standing after reverts and spend budgets; default: limitsConfig's defaults. */
  limits?: ExecutionGuardConfig | undefined
  /** Each runtime's own settings by chain type (GatewayConfig.runtimeOptions); default: none, each runtime's defaults. */
  runtimeOptions?: Record<string, unknown> | undefined
}
