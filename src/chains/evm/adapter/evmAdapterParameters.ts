// What createEvmAdapter is given: the chain with its endpoints, the relayer keys (or none: validate
// only), the leases of a fleet, and the chain's settings.
import type { Logger } from 'pino'
import type { Hex, LocalAccount } from 'viem'
import type { RpcRecorder } from '../../../metrics/createMetrics.ts'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'
import type { RelayerLeases } from '../../../ports/relayerLeases.ts'
import type { ResolvedChain } from '../discovery/resolveChains.ts'

export type CreateEvmAdapterParameters = {
  chain: ResolvedChain
  relayerPrivateKey: Hex | undefined
  /** Several relayer keys (a pool); when given, `relayerPrivateKey` is ignored. */
  relayerPrivateKeys?: readonly Hex[] | undefined
  /** Relayer keys that never enter the process (KMS, HSM): signers as accounts, joined to the pool after the local keys. */
  relayerAccounts?: readonly (LocalAccount & { backend?: string })[] | undefined
  /** Which keys this instance may send from now (several instances sharing a journal); default: all of them. */
  leases?: RelayerLeases | undefined
  rpcTimeoutMs: number
  pollingIntervalMs: number
  logger: Logger
  /**
   * The journal's signed, unsettled transactions of this relayer on this chain (made on this chain
   * instance, or on an unknown one): the relayer never reuses a nonce one of them holds.
   */
  unsettledTransactions?: (relayer: string, chainInstance: string | undefined) => Promise<readonly SignedExecution[]>
  /**
   * The most the relayer pays per gas (wei) when it re-prices a stuck execution; a transaction
   * the market prices above it waits. Default: no re-pricing.
   */
  maxFeePerGas?: bigint | undefined
  /** Blocks deep (1 = in the latest block) before an execution is final (CONFIRMATIONS). Default 1. */
  confirmations?: number | undefined
  /** The most gas the relayer pays for one execution; above it, 422 (0x06) and nothing is sent. */
  maxGasPerExecution?: bigint | undefined
  /** Told the duration and failure of every RPC call (metrics). */
  rpcRecorder?: RpcRecorder | undefined
  /** Fold concurrent validator reads into one Multicall3 call where the chain has it (MULTICALL). Default true. */
  foldReads?: boolean | undefined
  /** Keep validator answers for the block they were read on (VALIDATE_CACHE). Default false. */
  cacheAnswers?: boolean | undefined
  /** Under load, simulations at the pending state gather, none longer than this many ms (EVM_SIMULATION_GATHER_MS; loadConfig's default 200; simulationBatcher.ts says when a batch goes). Default 0: each event-loop turn's at once. */
  simulationGatherMs?: number | undefined
}
