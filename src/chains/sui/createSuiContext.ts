// Checks a Sui chain's configuration (all problems at once, never echoing the key) and builds the
// context the adapter's operations share.
import type { Signer } from '@mysten/sui/cryptography'
import { SuiGrpcClient } from '@mysten/sui/grpc'
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519'
import { normalizeSuiAddress } from '@mysten/sui/utils'
import type { Logger } from 'pino'
import { ConfigError } from '../../errors/configError.ts'
import type { RpcRecorder } from '../../metrics/createMetrics.ts'
import type { Journal } from '../../ports/journal.ts'
import type { RelayerLeases } from '../../ports/relayerLeases.ts'
import type { Ed25519Signer } from '../../signers/ed25519Signer.ts'
import { createMutex } from '../createMutex.ts'
import { createIssuedSponsorships } from './createIssuedSponsorships.ts'
import { holdSuiRelayerKey } from './holdSuiRelayerKey.ts'
import { type SuiChainConfig, type SuiNetwork, suiChainIds } from './suiChainConfig.ts'
import type { SuiContext } from './suiContext.ts'
import { suiIntentModule } from './suiIntentModule.ts'
import { toSuiSigner } from './toSuiSigner.ts'

export type CreateSuiContextParameters = {
  chain: SuiChainConfig
  /** The relayer's Ed25519 key: `suiprivkey1…` (as `sui keytool export` prints it) or 32 bytes. */
  relayerSecretKey: string | Uint8Array | undefined
  /** Or the relayer's key held outside the process (a PKCS#11 token, KMS): it signs, the gateway never sees it. */
  relayerSigner?: Ed25519Signer | undefined
  rpcTimeoutMs: number
  logger: Logger
  maxGasBudget: bigint
  /** Account mode: the most gas one sponsored transaction may budget, in MIST. */
  maxSponsoredGasBudget?: bigint | undefined
  /** Account mode: how many issued sponsorships are kept (each holds a small gas coin). */
  sponsorshipCapacity?: number | undefined
  /** Tests pass a client with its own transport; by default a grpc-web client on chain.rpcUrl. */
  client?: SuiGrpcClient | undefined
  rpcRecorder?: RpcRecorder | undefined
  /** A fleet's relayer leases (a shared journal): the key is then held by one instance at a time. */
  leases?: RelayerLeases | undefined
  /** The journal the leases share: a key taken over has its pending transactions delivered before it signs again. */
  journal?: Journal | undefined
}

const objectId = /^0x[0-9a-fA-F]{64}$/

export function createSuiContext({
  chain,
  relayerSecretKey,
  relayerSigner,
  rpcTimeoutMs,
  logger,
  maxGasBudget,
  maxSponsoredGasBudget = 50_000_000n,
  sponsorshipCapacity,
  client,
  rpcRecorder,
  leases,
  journal,
}: CreateSuiContextParameters): SuiContext {
  const problems = [
    ...((suiChainIds as readonly string[]).includes(chain.chainId)
      ? []
      : [`${chain.chainId}: a Sui chain id is one of ${suiChainIds.join(', ')}`]),
    ...(objectId.test(chain.packageId)
      ? []
      : [`${chain.chainId}: the package id must be 0x followed by 64 hex digits`]),
    ...(objectId.test(chain.hubId) ? [] : [`${chain.chainId}: the Hub object id must be 0x followed by 64 hex digits`]),
  ]
  let keypair: Signer | undefined
  if (relayerSigner && relayerSecretKey !== undefined)
    problems.push(`${chain.chainId}: the Sui relayer is one key: give its secret key or its signer, not both`)
  try {
    keypair = relayerSigner
      ? toSuiSigner(relayerSigner)
      : relayerSecretKey === undefined
        ? undefined
        : Ed25519Keypair.fromSecretKey(relayerSecretKey)
  } catch {
    // The key itself never reaches a message.
    problems.push(`${chain.chainId}: the Sui relayer key is not an Ed25519 key (expected suiprivkey1… or 32 bytes)`)
  }
  if (problems.length > 0) throw new ConfigError(problems)
  const network = chain.chainId.slice('sui:'.length) as SuiNetwork
  const packageId = normalizeSuiAddress(chain.packageId)
  const log = logger.child({ module: 'sui', chainId: chain.chainId })
  const relayer = keypair?.toSuiAddress()
  const ctx: SuiContext = {
    chainId: chain.chainId,
    network,
    rpcUrl: chain.rpcUrl,
    client: client ?? new SuiGrpcClient({ network, baseUrl: chain.rpcUrl }),
    keypair,
    relayer,
    relayerSigner: relayer ? (relayerSigner?.backend ?? 'local') : undefined,
    packageId,
    hubId: normalizeSuiAddress(chain.hubId),
    policyType: `${packageId}::${suiIntentModule.module}::${suiIntentModule.policyStruct}`,
    rpcTimeoutMs,
    maxGasBudget,
    maxSponsoredGasBudget,
    sponsorships: createIssuedSponsorships({ capacity: sponsorshipCapacity }),
    log,
    rpcRecorder,
    keyHold: undefined,
    journal,
    catchUp: false,
    sending: createMutex(),
    watches: new AbortController(),
    objects: { hub: undefined, policies: new Map() },
    unavailableReason: undefined,
    endpoint: { requests: 0, failures: 0, lastLatencyMs: undefined, lastError: undefined },
  }
  if (relayer && leases)
    ctx.keyHold = holdSuiRelayerKey({
      leases,
      chainId: chain.chainId,
      relayer,
      logger: log,
      onAcquired: () => void (ctx.catchUp = true),
    })
  return ctx
}
