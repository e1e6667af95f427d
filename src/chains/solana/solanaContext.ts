// What every operation of the Solana adapter works with, made once per chain by
// createSolanaContext: the chain's deployment, its RPC endpoints, the program's codec, the relayer
// key (if any), the logger and metrics. The operations in actions/ are functions of it (viem's
// `action(client, params)` shape), so each can be read, and tested, on its own.
import type { Address, Rpc, RpcTransport, SolanaRpcApi, TransactionPartialSigner } from '@solana/kit'
import type { Logger } from 'pino'
import type { RpcRecorder } from '../../metrics/createMetrics.ts'
import type { EndpointView } from '../../ports/endpoint.ts'
import type { IssuedMessages } from './createIssuedMessages.ts'
import type { createIntentGatewayProgram } from './intentGatewayProgram.ts'
import type { createSolanaRuntime } from './solanaRuntime.ts'

export type SolanaChainConfig = {
  /** CAIP-2: solana:<first 32 characters of the genesis hash>. */
  chainId: string
  reference: string
  name?: string
  rpcUrls: string[]
  /** The program (validator and executor). */
  programId: Address
  /** The program's deployment config account (the chain's `registry`). */
  config: Address
}

export type SolanaEndpoint = { url: string; transport: RpcTransport; rpc: Rpc<SolanaRpcApi>; view: EndpointView }

/**
 * The relayer: its address, the signer of its key (a promise: WebCrypto imports a key held in the
 * process), and where the key lives (`local`, `pkcs11`, `kms`) for /chains.
 */
export type SolanaRelayer = { address: Address; signer: Promise<TransactionPartialSigner>; backend: string }

export type SolanaContext = {
  chain: SolanaChainConfig
  program: ReturnType<typeof createIntentGatewayProgram>
  runtime: ReturnType<typeof createSolanaRuntime>
  endpoints: SolanaEndpoint[]
  log: Logger
  rpcTimeoutMs: number
  rpcRecorder: RpcRecorder | undefined
  /** Any funded system account to name as the simulation's fee payer; else the intent's sender. */
  simulationFeePayer: Address | undefined
  /** Absent: the chain validates only. */
  relayer: SolanaRelayer | undefined
  /** How often a sent transaction's status is polled (ms). */
  confirmationPollMs: number
  /** The priority-fee ceiling, micro-lamports per compute unit (SolanaOptions). */
  maxPriorityFee: bigint
  /** Account mode: the messages issued for agents to sign, by intent hash (see createIssuedMessages). */
  issuedMessages: IssuedMessages
  /** Set by markUnavailable: every request is answered 503 with this reason from then on. */
  state: { unavailableReason: string | undefined }
}

/**
 * The journal's `details` of a Solana transaction: the blockhash it lives by, and its compute
 * budget (absent in records written before the gateway set one).
 */
export type SolanaTransactionDetails = {
  blockhash: string
  lastValidBlockHeight: string
  computeUnitLimit?: string
  computeUnitPrice?: string
  /** `account`: the agent signed the transaction itself; the gateway never signs it again (no replacement). */
  mode?: 'account'
}
