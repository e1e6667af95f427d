// What every EVM adapter operation works with, built once per chain: its endpoints, a viem
// client over them, the validator-read folding, the block watch for receipts, the relayer pool,
// and the little state the chain keeps (availability, the chain instance, whether the node traces).
import type { Logger } from 'pino'
import {
  type Address,
  type Chain,
  createPublicClient,
  custom,
  defineChain,
  getAddress,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem'
import { ChainUnavailableError } from '../../../errors/chainUnavailableError.ts'
import type { ResimulationOutcome } from '../../../metrics/createMetrics.ts'
import { createLocalRelayerLeases } from '../../../ports/relayerLeases.ts'
import { createEndpointPool, type EndpointPool } from '../../createEndpointPool.ts'
import { type AnswerCache, createAnswerCache } from '../createAnswerCache.ts'
import { createCallBatcher } from '../createCallBatcher.ts'
import type { ReceiptWatcher } from '../createReceiptWatcher.ts'
import type { ResolvedChain } from '../discovery/resolveChains.ts'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import { createRelayerPool, type RelayerPool } from '../relayer/createRelayerPool.ts'
import { toRelayerAccount } from '../relayer/toRelayerAccount.ts'
import type { CreateEvmAdapterParameters } from './evmAdapterParameters.ts'
import { createExecutionOrder, type ExecutionOrder } from './executionOrder.ts'
import { createSimulationBatcher, type SimulationBatcher } from './simulationBatcher.ts'
import { watchReceipts } from './watchReceipts.ts'

/** The gas a shape's recent executions used (the last 256: `next` is where the next one goes), the least and the most of them. */
export type ShapeGas = { recent: number[]; next: number; least: number; most: number }

export type EvmContext = {
  /** The chain, its contract addresses as EVM addresses (the configuration checked them). */
  chain: ResolvedChain & { executor: Address; validator: Address; registry: Address }
  viemChain: Chain
  log: Logger
  pool: EndpointPool
  client: PublicClient
  /** Validator reads: folded into Multicall3, and kept per block when VALIDATE_CACHE is on. */
  reads: AnswerCache
  /** Concurrent executes' simulations, folded into one eth_simulateV1 after the gateway's own unmined transactions. */
  simulations: SimulationBatcher
  /** The order this instance's executions are signed in, against what each simulation assumed (executionOrder.ts). */
  order: ExecutionOrder
  /**
   * An execution simulated again before its signature (its simulation no longer held, or its
   * settlement came between): it still passed, was refused (nothing sent), or was overtaken too
   * often (503, nothing sent). For the metrics.
   */
  onResimulated: (outcome: ResimulationOutcome) => void
  receipts: ReceiptWatcher<TransactionReceipt>
  /** Undefined on a chain without a relayer key: validate only. */
  relayers: RelayerPool | undefined
  /** Where each relayer key lives, by lower-case address, for /chains: never the key, only its backend. */
  signerOf: ReadonlyMap<string, string>
  maxGasPerExecution: bigint | undefined
  maxFeePerGas: bigint | undefined
  confirmations: number
  /** The gas executions of each shape use (SimulationRequest.shape): the next one is simulated once, at a limit from it (simulateExecution.ts). */
  gasByShape: Map<string, ShapeGas>
  /** Journaled transactions found unable to ever mine: they hold no relayer nonce. */
  unmineable: Set<string>
  state: {
    unavailableReason: string | undefined
    /** The chain instance last read (see chainInstance.ts). */
    instance: { value: string; at: number } | undefined
    /** A read of the chain instance under way, which requests that accept a recent read join. */
    instanceRead: Promise<string> | undefined
    genesisHash: string | undefined
    /** Whether the node may be a dev node that answers anvil_metadata (until it says it is not). */
    devNode: boolean
    /** Whether the node answers debug_traceTransaction (unknown until asked). */
    traces: boolean | undefined
    /** Whether the node answers eth_simulateV1 (unknown until asked; false: eth_estimateGas). */
    simulates: boolean | undefined
    /** Executions simulated and handed over to be sent, not yet waiting for their receipts: soon in the node's pool. */
    handedOver: number
    /** The account delegate's IntentLedger (its immutable `ledger()`), read once when account mode first needs it. */
    accountLedger?: Promise<Address> | undefined
  }
}

export function createEvmContext({
  chain: resolved,
  relayerPrivateKey,
  relayerPrivateKeys,
  relayerAccounts = [],
  leases = createLocalRelayerLeases(),
  rpcTimeoutMs,
  pollingIntervalMs,
  logger,
  unsettledTransactions,
  maxGasPerExecution,
  maxFeePerGas,
  confirmations = 1,
  rpcRecorder,
  foldReads = true,
  cacheAnswers = false,
  simulationGatherMs,
}: CreateEvmAdapterParameters): EvmContext {
  const chain = {
    ...resolved,
    executor: resolved.executor as Address,
    validator: resolved.validator as Address,
    registry: resolved.registry as Address,
  }
  const log = logger.child({ module: 'evm', chainId: chain.chainId })
  const pool = createEndpointPool({
    chainId: chain.chainId,
    reference: Number(chain.reference),
    endpoints: chain.endpoints,
    timeoutMs: rpcTimeoutMs,
    logger,
    rpcRecorder,
  })
  const viemChain: Chain = defineChain({
    id: Number(chain.reference),
    name: chain.name,
    nativeCurrency: chain.nativeCurrency,
    rpcUrls: { default: { http: [] } },
  })
  const client: PublicClient = createPublicClient({
    chain: viemChain,
    transport: custom({ request: pool.request }, { retryCount: 0 }),
    pollingInterval: pollingIntervalMs,
    cacheTime: 0,
  })
  // A new block: the simulations gathered under load go now, while the node's pool holds little,
  // and the head and each key's count are read for the next batch (simulationBatcher.ts).
  const watched = watchReceipts({
    client,
    pool,
    log,
    pollingIntervalMs,
    onBlock: (spacingMs, dueInMs) => simulations.blockSeen(spacingMs, dueInMs),
  })
  // A relayer's transaction mined: it (and what its key sent below it) is no longer replayed before simulations.
  const receipts: ReceiptWatcher<TransactionReceipt> = {
    ...watched,
    wait: (hash, options) =>
      watched.wait(hash, options).then((r) => {
        relayers?.mined(r.from, r.transactionHash)
        return r
      }),
  }
  const batcher = createCallBatcher({ request: pool.request, logger: log, enabled: foldReads })
  const reads = cacheAnswers ? createAnswerCache({ reads: batcher, request: pool.request }) : batcher
  // Each simulation runs after the gateway's transactions the node may still mine: replayed on
  // `latest` from their signed bytes when every one is known, else at the node's pending block,
  // whose build runs again the gateway's transactions in its pool (gathered under load: those
  // waiting for their receipts and those about to be sent).
  let anchoring: Promise<void> | undefined
  let anchoredAt = Number.NEGATIVE_INFINITY
  const own = () => {
    const calls = relayers?.unmined()
    // Not all known (a start, a resync, a lease taken over): the keys look again at the node's counts, at most once a second.
    if (calls === undefined && relayers && !anchoring && Date.now() - anchoredAt >= 1000) {
      anchoredAt = Date.now()
      anchoring = relayers.anchor().finally(() => {
        anchoring = undefined
      })
    }
    return calls
  }
  const order = createExecutionOrder()
  const simulations = createSimulationBatcher(pool.request, {
    order,
    // With a bundler, a key's executions are simulated as the bundles they are sent as (simulatedBundles.ts).
    ...(chain.bundler ? { bundle: { bundler: getAddress(chain.bundler), executor: getAddress(chain.executor) } } : {}),
    gatherMs: simulationGatherMs,
    pending: () => receipts.waiting() + state.handedOver,
    own,
    onMinedBelow: (address, count) => relayers?.minedBelow(address, count),
    onLacking: (address) => relayers?.unminedLacking(address),
    onSimulated: (asked, replayed) => rpcRecorder?.observeSimulation?.({ chain: chain.chainId, asked, replayed }),
    onReplayRefused: (err) =>
      log.debug(
        { err },
        'the node refused a simulation with the unmined relayer transactions replayed; simulated at its pending block',
      ),
  })
  // A relayer's broadcasts, in nonce order in one request.
  const broadcastMany = (rawTransactions: readonly Hex[]) =>
    pool.sequence(rawTransactions.map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })))
  const accounts = [
    ...(relayerPrivateKeys ?? (relayerPrivateKey ? [relayerPrivateKey] : [])).map((key) => toRelayerAccount(key)),
    ...relayerAccounts,
  ]
  const state: EvmContext['state'] = {
    unavailableReason: undefined,
    instance: undefined,
    instanceRead: undefined,
    genesisHash: undefined,
    devNode: true,
    traces: undefined,
    simulates: undefined,
    handedOver: 0,
  }
  const unmineable = new Set<string>()
  // New transactions go above the highest nonce an unsettled journaled one holds. Transactions
  // found unable to ever mine (above a nonce gap, or of a reset chain) hold no nonce, even in the
  // moment before the reconciler settles their records.
  const nonceFloor = unsettledTransactions
    ? async (address: Address, ignore: ReadonlySet<string>) => {
        const nonces = (await unsettledTransactions(address, state.instance?.value))
          .filter((t) => !unmineable.has(t.id) && !ignore.has(t.id))
          .map(evmSignedExecution.txNonce)
        return nonces.length === 0 ? undefined : Math.max(...nonces) + 1
      }
    : undefined
  // A key is set aside while it cannot pay for one execution at the most gas and fee it may use.
  const minBalance = async () => (maxGasPerExecution ?? 1_000_000n) * (await client.estimateFeesPerGas()).maxFeePerGas
  const relayers =
    accounts.length > 0
      ? createRelayerPool({
          accounts,
          client,
          chainId: viemChain.id,
          chain: chain.chainId,
          logger: log,
          leases,
          nonceFloor,
          minBalance,
          broadcastMany,
          onGapFilled: (filler) => rpcRecorder?.observeNonceGapFilled?.({ chain: chain.chainId, filler }),
        })
      : undefined
  const signerOf = new Map(
    accounts.map((a) => [a.address.toLowerCase(), (a as { backend?: string }).backend ?? 'local']),
  )
  return {
    chain,
    viemChain,
    log,
    pool,
    client,
    reads,
    simulations,
    order,
    onResimulated: (outcome) => rpcRecorder?.observeResimulation?.({ chain: chain.chainId, outcome }),
    gasByShape: new Map(),
    receipts,
    relayers,
    signerOf,
    maxGasPerExecution,
    maxFeePerGas,
    confirmations,
    unmineable,
    state,
  }
}

/** Every request fails with 503 (0xF4) once preflight found the chain's contracts missing. */
export function assertAvailable({ chain, state }: EvmContext): void {
  if (state.unavailableReason)
    throw new ChainUnavailableError(chain.chainId, { details: state.unavailableReason, retryAfterSeconds: 60 })
}
