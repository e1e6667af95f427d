// A runtime (EVM, Solana, Sui) as the gateway composes it: one module per folder under chains/,
// each exported by its folder's index.ts and named once in src/runtimes.ts. Configuration, the
// chain registry, createGateway and main.ts reach a runtime only through this shape, so shared
// code never imports a runtime's folder, and a new runtime is a folder and a line in that list.
import type { Logger } from 'pino'
import type { RpcRecorder } from '../metrics/createMetrics.ts'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { ChainType } from '../ports/chainId.ts'
import type { ChainRuntime } from '../ports/chainRuntime.ts'
import type { Journal } from '../ports/journal.ts'
import type { KeySource } from '../ports/keySource.ts'
import type { RelayerLeases } from '../ports/relayerLeases.ts'
import type { ChainConfig, Env, GatewayConfig } from './gatewayConfig.ts'
import type { HeldKeys } from './signersConfig.ts'

/**
 * The settings a runtime reads for itself from the environment: its relayer keys held in the
 * process (`local` KeySources, kept in GatewayConfig.keys under its chain type, before the ones
 * held in a token or KMS), and anything else as `options`, a shape of the runtime's own (kept in
 * GatewayConfig.runtimeOptions under its chain type). Both are handed back to its createChains.
 */
export type RuntimeSettings = {
  keys?: readonly KeySource<unknown>[] | undefined
  options?: unknown
}

/** What createGateway lends a runtime to build its chains with. */
export type RuntimeContext = {
  settings: GatewayConfig
  logger: Logger
  rpcRecorder: RpcRecorder | undefined
  journal: Journal
  /** The relayer-key leases of a fleet (a shared journal); undefined: this instance holds every key. */
  leases: RelayerLeases | undefined
}

export type RuntimeChains = {
  adapters: ChainAdapter[]
}

/** A runtime's embedded devnet chain (`npm start` with nothing configured). */
export type RuntimeDevnet = {
  chain: ChainConfig
  /** What the devnet supplies where the operator set nothing: its relayer key, and the prices of its chain (joined with the other devnets'). */
  settings: {
    /** Its relayer keys (the operator's, when set, are kept). */
    keys: readonly KeySource<unknown>[]
    /** Options of its runtime it supplies; each one the operator left unset is taken. */
    options?: Record<string, unknown> | undefined
    payments?: GatewayConfig['payments']
  }
  /** Whether its chain is the default one (X-Chain-Id absent). */
  isDefault: boolean
  /** What the start-up banner prints about it: the chain, its contracts, and commands to try. */
  describe(context: { baseUrl: string; apiKey: string }): Promise<string>
  stop(): Promise<void>
}

/**
 * What the API's documentation (the OpenAPI document, the MCP tools, x402 discovery) shows of a
 * runtime: values in its own terms, handed to the HTTP app by the composition root, so that the
 * shared schemas name no chain family.
 */
export type RuntimeExamples = {
  /** A chain id of this runtime as the descriptions name one (`eip155:84532`, `sui:mainnet`). */
  chainId: string
  /**
   * Requests and answers that work against its devnet ("Try it out" on /docs sends them); absent
   * where the runtime has none. The document shows those of the first runtime in the list that has them.
   */
  devnet?: DevnetExamples | undefined
}

/** Worked examples against a runtime's devnet (the deterministic deployment `npm start` and the tests run). */
export type DevnetExamples = {
  /** The devnet chain's id: X-Chain-Id, the answers' chainId, the chainId path parameter. */
  chainId: string
  /** An intent the devnet allows (validate's body). */
  intent: Record<string, unknown>
  /** The same kind of intent with its sender's signature (execute's body), and its intent hash (GET /intents/{intentHash}). */
  signedIntent: Record<string, unknown>
  signedIntentHash: string
  /** An answer's intent hash and transaction id. */
  intentHash: string
  transactionHash: string
  /** What the sender is asked to sign (a 401 with 0xE5 carries it as `signing`). */
  signing: Record<string, unknown>
  /** A 402 with 0x54: how the sender adds funds (the PaymentRequired's `extensions`). */
  fundingExtensions: Record<string, unknown>
  /** A 402 with 0x55: the gateway's price on the chain `chainId` above names (an x402 `accepts` entry, less its network). */
  price: { scheme: string; amount: string; asset: string; payTo: string; maxTimeoutSeconds: number; extra?: unknown }
}

export type RuntimeModule = {
  chainType: ChainType
  /** Its name in messages (`EVM`, `Solana`, `Sui`). */
  name: string
  /** The CAIP-2 namespace of its chain ids (`eip155`, `solana`, `sui`). */
  namespace: string
  /** Parsing and hashing without a deployment: for requests to chains of this runtime not served here (421). */
  runtime: ChainRuntime
  /** What is wrong with a contract address in the configuration's maps (the message names the value, cut short), or undefined. */
  checkContractAddress(value: string): string | undefined
  /** What is wrong with a chain id's reference on this runtime (Sui: not a network name), or undefined. */
  checkReference?(reference: string): string | undefined
  /** Whether its chains may go without RPC_URLS (EVM: their endpoints are found in the chain list). */
  discoversEndpoints: boolean
  /** Whether its chains may send executions in bundles (BUNDLER_ADDRESSES; EVM: IntentBundler). */
  sendsBundles?: boolean
  /** Reads the runtime's own settings; each problem is pushed onto `problems` (a key is never echoed). */
  readSettings(env: Env, context: { production: boolean; problems: string[] }): RuntimeSettings
  /**
   * Where its relayer keys may be held outside the process: the prefix of the settings naming them
   * in a PKCS#11 token or KMS, and whether it holds a pool (config/signersConfig.ts reads them into
   * GatewayConfig.keys under its chain type).
   */
  heldKeys: HeldKeys
  /** The adapters of its configured chains (its client loaded only now, when one is configured). */
  createChains(chains: ChainConfig[], context: RuntimeContext): Promise<RuntimeChains>
  /** What the API's documentation shows of it (config/runtimeModule.ts' RuntimeExamples). */
  examples: RuntimeExamples
  /** Its devnet chain, as the start-up line names it (`anvil`), and how to start it; absent where the runtime has none (Sui). */
  devnet?: { name: string; start(): Promise<RuntimeDevnet> } | undefined
}
