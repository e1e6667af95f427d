// Builds the SolanaContext of one chain from the adapter's parameters: one @solana/kit RPC client
// per endpoint, the program codec and runtime bound to the deployment, the relayer's signer.
import {
  type Address,
  createDefaultRpcTransport,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpcFromTransport,
  getBase58Decoder,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit'
import type { Logger } from 'pino'
import type { RpcRecorder } from '../../metrics/createMetrics.ts'
import type { EndpointView } from '../../ports/endpoint.ts'
import type { Ed25519Signer } from '../../signers/ed25519Signer.ts'
import { createIssuedMessages } from './createIssuedMessages.ts'
import { ed25519Seed } from './ed25519Seed.ts'
import { createIntentGatewayProgram } from './intentGatewayProgram.ts'
import type { SolanaChainConfig, SolanaContext } from './solanaContext.ts'
import { defaultSolanaOptions, type SolanaOptions } from './solanaOptions.ts'
import { createSolanaRuntime } from './solanaRuntime.ts'
import { toSolanaSigner } from './toSolanaSigner.ts'

export type CreateSolanaAdapterParameters = {
  chain: SolanaChainConfig
  rpcTimeoutMs: number
  logger: Logger
  /**
   * Any funded system account to name as the simulation's fee payer (nothing is signed or paid).
   * Without one the intent's sender is named, which fails if the sender holds no SOL.
   */
  simulationFeePayer?: Address | undefined
  /** Told the duration and failure of every RPC call (metrics). */
  rpcRecorder?: RpcRecorder | undefined
  /**
   * The relayer's Ed25519 private key (its 32-byte seed): it signs and pays for executions.
   * Without one the chain validates only (canExecute false).
   */
  relayerSecretKey?: Uint8Array | undefined
  /** Or the relayer's key held outside the process (a PKCS#11 token, KMS): it signs, the gateway never sees it. */
  relayerSigner?: Ed25519Signer | undefined
  /** How often a sent transaction's status is polled (ms). */
  confirmationPollMs?: number | undefined
  /** The runtime's own settings (the priority-fee ceiling); default: defaultSolanaOptions. */
  options?: Partial<SolanaOptions> | undefined
}

export function createSolanaContext({
  chain,
  rpcTimeoutMs,
  logger,
  simulationFeePayer,
  rpcRecorder,
  relayerSecretKey,
  relayerSigner,
  confirmationPollMs = 250,
  options,
}: CreateSolanaAdapterParameters): SolanaContext {
  const log = logger.child({ module: 'solana', chainId: chain.chainId })
  if (chain.rpcUrls.length === 0) throw new Error(`chain ${chain.chainId} has no RPC URL`)
  if (relayerSecretKey && relayerSecretKey.length !== 32)
    throw new Error('the Solana relayer key must be the 32-byte Ed25519 seed')
  if (relayerSecretKey && relayerSigner)
    throw new Error('the Solana relayer is one key: give its seed or its signer, not both')
  const endpoints = chain.rpcUrls.map((url) => {
    // One transport per endpoint: the adapter's RPC over it, and the calls lent to payments.
    const transport = createDefaultRpcTransport({ url })
    return {
      url,
      transport,
      rpc: createSolanaRpcFromTransport(transport) as Rpc<SolanaRpcApi>,
      view: {
        url: redact(url),
        source: 'config',
        status: 'unverified',
        latencyMs: undefined,
        requests: 0,
        failures: 0,
        lastError: undefined,
      } satisfies EndpointView as EndpointView,
    }
  })
  const relayer = relayerSigner
    ? {
        address: getBase58Decoder().decode(relayerSigner.publicKey) as Address,
        signer: Promise.resolve(toSolanaSigner(relayerSigner)),
        backend: relayerSigner.backend,
      }
    : relayerSecretKey
      ? {
          address: getBase58Decoder().decode(ed25519Seed.publicKey(relayerSecretKey)) as Address,
          signer: createKeyPairSignerFromPrivateKeyBytes(relayerSecretKey),
          backend: 'local',
        }
      : undefined
  log.info(
    {
      programId: chain.programId,
      config: chain.config,
      endpoints: endpoints.length,
      relayer: relayer?.address,
      signer: relayer?.backend,
    },
    'chain configured',
  )
  return {
    chain,
    program: createIntentGatewayProgram(chain.programId),
    runtime: createSolanaRuntime({ programId: chain.programId, config: chain.config }),
    endpoints,
    log,
    rpcTimeoutMs,
    rpcRecorder,
    simulationFeePayer,
    relayer,
    confirmationPollMs,
    maxPriorityFee: BigInt(options?.maxPriorityFeeMicroLamports ?? defaultSolanaOptions.maxPriorityFeeMicroLamports),
    issuedMessages: createIssuedMessages(),
    state: { unavailableReason: undefined },
  }
}

/** An RPC URL without credentials or query (API keys often ride there). */
function redact(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : '/…'}`
  } catch {
    return 'invalid url'
  }
}
