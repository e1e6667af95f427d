// The EVM implementation of the ChainAdapter port: validator reads, preflight simulation and
// execution through the relayer, over one viem client per chain.
import { readFundingShortfall } from './readFundingShortfall.ts'
import type { Logger } from 'pino'
import {
  type Address,
  type Chain,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
  BaseError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  createPublicClient,
  custom,
  decodeEventLog,
  decodeFunctionData,
  defineChain,
  concatHex,
  encodeAbiParameters,
  hexToNumber,
  parseTransaction,
  formatTransactionReceipt,
  numberToHex,
  type RpcTransactionReceipt,
  toFunctionSelector,
} from 'viem'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { RelayerError } from '../../errors/relayerError.ts'
import type { ResolvedChain } from './discovery/resolveChains.ts'
import { createAnswerCache } from './createAnswerCache.ts'
import { createCallBatcher } from './createCallBatcher.ts'
import { createReceiptWatcher } from './createReceiptWatcher.ts'
import { createEndpointPool } from '../createEndpointPool.ts'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'
import { intentValidatorArtifact } from '../../contracts/intentValidatorArtifact.ts'
import type { Intent } from '../../ports/intent.ts'
import { broadcastRaw, type Fees, isTransportError } from './relayer/createRelayer.ts'
import { createRelayerPool } from './relayer/createRelayerPool.ts'
import { toRelayerAccount } from './relayer/toRelayerAccount.ts'
import { createLocalRelayerLeases, type RelayerLeases } from '../../ports/relayerLeases.ts'
import { isSuccessStatus, Status } from '../../status/statusCodes.ts'
import type { ChainAdapter, ExecutionOptions, ExecutionReceipt, MinedCheck, Preflight, PreflightResult, ReconcileRequest, Reconciliation, Replacement, SignedExecution } from '../../ports/chainAdapter.ts'
import { probeHealth } from '../probeHealth.ts'
import type { RpcRecorder } from '../../metrics/createMetrics.ts'
import { evmSignedExecution } from './evmSignedExecution.ts'
import { classifyRpcError } from './classifyRpcError.ts'
import { type DecodedRevert, decodeExecutorRevert, decodeRevertData } from './decodeExecutorRevert.ts'
import { encodeIntent, evmRuntime, toIntentTuple } from './evmRuntime.ts'
import { intentDomain, intentTypedData, intentTypes } from './intentTypedData.ts'

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
}

const selectorOf = <const abi extends readonly { type: string; name?: string }[]>(abi: abi, name: string) =>
  toFunctionSelector(abi.find((i) => i.type === 'function' && i.name === name) as never)
const canExecuteSelector = selectorOf(intentValidatorArtifact.abi, 'canExecute')
const checkSignedSelector = selectorOf(intentExecutorArtifact.abi, 'checkSigned')
const executeSelector = selectorOf(intentExecutorArtifact.abi, 'execute')
const executeSignedSelector = selectorOf(intentExecutorArtifact.abi, 'executeSigned')

/** The ABI-encoded (intent, signature) of checkSigned and executeSigned, after their selectors. */
function encodeSignedIntent(intent: Intent, signature: Hex): Hex {
  return encodeAbiParameters(signedArguments, [toIntentTuple(intent), signature])
}
const signedArguments = intentExecutorArtifact.abi.find((i) => i.type === 'function' && i.name === 'executeSigned')!.inputs

/** The most gas an execution may use, and who set it: the chain's MAX_GAS_PER_EXECUTION, or what a paid execute's price covers. */
type GasCap = { gas: bigint; by: 'chain' | 'price' }

/** Head-room over the estimate: state can move between estimate and inclusion. */
const gasMarginPercent = 120n
/** How long a request's own watch on its transaction lasts; reconciliation takes over after it. */
const receiptWatchLimitMs = 15 * 60_000

/** How long a chain instance read is reused by the request path. */
const instanceReuseMs = 1000
/** A replacement raises both fees by at least this (per mille): geth and anvil want 10%, some nodes 12.5%. */
const replacementBumpPerMille = 1125n

export function createEvmAdapter({ chain: resolved, relayerPrivateKey, relayerPrivateKeys, relayerAccounts = [], leases = createLocalRelayerLeases(), rpcTimeoutMs, pollingIntervalMs, logger, unsettledTransactions, maxGasPerExecution, maxFeePerGas, confirmations = 1, rpcRecorder, foldReads = true, cacheAnswers = false }: CreateEvmAdapterParameters): ChainAdapter {
  // The configuration checked these as EVM addresses.
  const chain = { ...resolved, executor: resolved.executor as Address, validator: resolved.validator as Address, registry: resolved.registry as Address }
  const log = logger.child({ module: 'evm', chainId: chain.chainId })
  const pool = createEndpointPool({ chainId: chain.chainId, reference: Number(chain.reference), endpoints: chain.endpoints, timeoutMs: rpcTimeoutMs, logger, rpcRecorder })
  const viemChain: Chain = defineChain({
    id: Number(chain.reference),
    name: chain.name,
    nativeCurrency: chain.nativeCurrency,
    rpcUrls: { default: { http: [] } },
  })
  // One block watch answers every execution's receipt wait (reconciliation takes over after the limit).
  const receipts = createReceiptWatcher<TransactionReceipt>({
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async blockReceipts(blockNumber) {
      try {
        const raw = (await pool.request({ method: 'eth_getBlockReceipts', params: [numberToHex(blockNumber)] })) as RpcTransactionReceipt[] | null
        return (raw ?? []).map((r) => formatTransactionReceipt(r))
      } catch (err) {
        if (isUnknownMethod(err)) return undefined
        throw err
      }
    },
    receipt: (hash) =>
      client.getTransactionReceipt({ hash }).catch((err: unknown) => {
        if (err instanceof BaseError && err.walk((e) => e instanceof TransactionReceiptNotFoundError)) return undefined
        throw err
      }),
    hashOf: (r) => r.transactionHash,
    intervalMs: pollingIntervalMs,
    limitMs: receiptWatchLimitMs,
    onError: (err) => log.debug({ err }, 'receipt watch: a read failed; trying again'),
  })
  const watchReceipt = (hash: Hex) => receipts.wait(hash)
  const batcher = createCallBatcher({ request: pool.request, logger: log, enabled: foldReads })
  const reads = cacheAnswers ? createAnswerCache({ reads: batcher, request: pool.request }) : batcher
  const client: PublicClient = createPublicClient({
    chain: viemChain,
    transport: custom({ request: pool.request }, { retryCount: 0 }),
    pollingInterval: pollingIntervalMs,
    cacheTime: 0,
  })
  // A relayer's broadcasts, in nonce order in one request.
  const broadcastMany = (rawTransactions: readonly Hex[]) => pool.sequence(rawTransactions.map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })))
  const accounts = [...(relayerPrivateKeys ?? (relayerPrivateKey ? [relayerPrivateKey] : [])).map((key) => toRelayerAccount(key)), ...relayerAccounts]
  // Where each key lives, for /chains: never the key, only its backend.
  const signerOf = new Map(accounts.map((a) => [a.address.toLowerCase(), (a as { backend?: string }).backend ?? 'local']))
  // New transactions go above the highest nonce an unsettled journaled one holds.
  // Transactions found unable to ever mine (above a nonce gap, or of a reset chain) hold no nonce,
  // even in the moment before the reconciler settles their records.
  const unmineable = new Set<string>()
  const nonceFloor = unsettledTransactions
    ? async (address: Address, ignore: ReadonlySet<string>) => {
        const nonces = (await unsettledTransactions(address, instance?.value)).filter((t) => !unmineable.has(t.id) && !ignore.has(t.id)).map(evmSignedExecution.txNonce)
        return nonces.length === 0 ? undefined : Math.max(...nonces) + 1
      }
    : undefined
  // A key is set aside while it cannot pay for one execution at the most gas and fee it may use.
  const minBalance = async () => (maxGasPerExecution ?? 1_000_000n) * (await client.estimateFeesPerGas()).maxFeePerGas
  const relayers = accounts.length > 0 ? createRelayerPool({ accounts, client, chainId: viemChain.id, chain: chain.chainId, logger: log, leases, nonceFloor, minBalance, broadcastMany }) : undefined
  let unavailableReason: string | undefined

  // The chain instance: the genesis hash, and the instance id of a dev node that has one (anvil's
  // genesis is the same on every start; its anvil_metadata instanceId is not).
  let instance: { value: string; at: number } | undefined
  let genesisHash: string | undefined
  let devNode = true
  async function readInstance(): Promise<string> {
    genesisHash ??= (await client.getBlock({ blockNumber: 0n })).hash ?? undefined
    let id: string | undefined
    if (devNode) {
      try {
        id = ((await pool.request({ method: 'anvil_metadata', params: [] })) as { instanceId?: string } | null)?.instanceId
      } catch (err) {
        if (!isUnknownMethod(err)) throw err
        devNode = false
      }
    }
    return id ? `${genesisHash}/${id}` : String(genesisHash)
  }
  async function chainInstance(maxAgeMs = instanceReuseMs): Promise<string> {
    if (instance && Date.now() - instance.at <= maxAgeMs) return instance.value
    let value: string
    try {
      value = await readInstance()
    } catch (err) {
      throw classifyRpcError(err, chain.chainId, 'chain instance read')
    }
    if (instance && instance.value !== value) {
      // A chain reset on the same id: nonces start again, whatever the relayer remembered.
      genesisHash = undefined
      log.warn({ before: instance.value, now: value }, 'the chain was reset (another chain instance answers on this chain id); the relayer reads its nonce again')
      relayers?.resync()
    }
    instance = { value, at: Date.now() }
    return value
  }

  log.info({ relayers: relayers?.addresses ?? [], endpoints: chain.endpoints.length }, 'chain configured')

  function assertAvailable() {
    if (unavailableReason) throw new ChainUnavailableError(chain.chainId, { details: unavailableReason, retryAfterSeconds: 60 })
  }

  async function validate(intent: Intent, signature?: Hex): Promise<number> {
    assertAvailable()
    // Without a signature, the validator's policy read alone; with one, the executor checks the
    // signature and asks its validator, in the same call.
    const call = signature
      ? { what: `checkSigned call to the executor at ${chain.executor}`, to: chain.executor, data: concatHex([checkSignedSelector, encodeSignedIntent(intent, signature)]) }
      : { what: `canExecute call to the validator at ${chain.validator}`, to: chain.validator, data: concatHex([canExecuteSelector, encodeIntent(intent)]) }
    const { what } = call
    let result: Hex
    try {
      // A plain eth_call on the shared encoding, folded with other requests' reads into one
      // Multicall3 call where the chain has it: the hot path of every request.
      result = await reads.call({ to: call.to, data: call.data })
    } catch (err) {
      throw classifyRpcError(err, chain.chainId, what)
    }
    // bytes1 is returned left-aligned in one 32-byte word.
    if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}/.test(result)) {
      throw new GatewayError(`The chain rejected the ${what}`, {
        code: 'CHAIN_CALL_FAILED',
        details: result === '0x' ? 'it returned no data: is a validator deployed at this address on this chain?' : 'it returned data that is not a bytes1',
      })
    }
    return Number.parseInt(result.slice(2, 4), 16)
  }

  /**
   * The execution's outcome from its receipt. A revert is decoded from the transaction as it ran:
   * its trace where the node has one, else its call replayed on its parent block with its own
   * sender, fees and gas limit. `gas` (when this gateway chose the limit): a revert that used up a
   * limit below the cap ran out of the gas *we* gave it, which is not the intent's outcome.
   */
  async function toExecutionReceipt(calldata: Hex, receipt: TransactionReceipt, gas?: { gasLimit: bigint; cap: bigint | undefined }): Promise<ExecutionReceipt> {
    const base = { transactionHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, gasUsed: receipt.gasUsed, fee: receipt.gasUsed * receipt.effectiveGasPrice }
    if (receipt.status === 'success') {
      const executed = receipt.logs
        .filter((l) => l.address.toLowerCase() === chain.executor.toLowerCase())
        .map((l) => {
          try {
            return decodeEventLog({ abi: intentExecutorArtifact.abi, eventName: 'IntentExecuted', data: l.data, topics: l.topics })
          } catch {
            return undefined
          }
        })
        .find(Boolean)
      return {
        ...base,
        state: 'mined',
        status: executed ? hexToNumber(executed.args.status) : Status.EXECUTED,
        returnData: executed?.args.returnData,
        detail: undefined,
      }
    }
    const outOfGas = gas !== undefined && (gas.cap === undefined || gas.gasLimit < gas.cap) && receipt.gasUsed * 64n >= gas.gasLimit * 63n
    const decoded = (await revertReason(calldata, receipt)) ?? { status: Status.FAILURE as number, detail: 'the transaction reverted on-chain without revert data (out of gas, or a revert without a reason)' }
    if (outOfGas) {
      return { ...base, state: 'reverted', returnData: undefined, status: decoded.status, outOfGas: true, detail: `the transaction used up the gas limit of ${gas.gasLimit} this gateway gave it (${decoded.detail}); not the intent's outcome: it is sent again with a higher limit` }
    }
    return { ...base, state: 'reverted', returnData: undefined, ...decoded }
  }

  /** Why a mined transaction reverted, read from the state it met. */
  async function revertReason(calldata: Hex, receipt: TransactionReceipt): Promise<DecodedRevert | undefined> {
    if (traces !== false) {
      try {
        const frame = (await pool.request({ method: 'debug_traceTransaction', params: [receipt.transactionHash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }] })) as { output?: Hex; error?: string } | null
        traces = true
        if (frame?.output && frame.output.length >= 10) return decodeRevertData(frame.output)
        if (frame?.error) return { status: Status.FAILURE, detail: `the transaction reverted on-chain: ${frame.error}` }
        return undefined
      } catch (err) {
        if (isUnknownMethod(err)) traces = false
        else log.debug({ err, transactionHash: receipt.transactionHash }, 'trace of a reverted transaction failed; replaying its call instead')
      }
    }
    try {
      const tx = await client.getTransaction({ hash: receipt.transactionHash })
      await client.call({
        account: receipt.from,
        to: chain.executor,
        data: calldata,
        gas: tx.gas,
        ...(tx.maxFeePerGas !== undefined ? { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas } : { gasPrice: tx.gasPrice }),
        blockNumber: receipt.blockNumber - 1n,
      } as never)
      return undefined
    } catch (err) {
      return decodeExecutorRevert(err)
    }
  }
  /** Whether the node answers debug_traceTransaction (unknown until asked). */
  let traces: boolean | undefined

  async function receiptOf(transactionHash: Hex): Promise<TransactionReceipt | undefined> {
    try {
      return await client.getTransactionReceipt({ hash: transactionHash })
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) return undefined
      throw err
    }
  }

  async function reconcile(tx: ReconcileRequest): Promise<Reconciliation> {
    assertAvailable()
    const rawTransaction = evmSignedExecution.rawTransaction(tx)
    const txNonce = evmSignedExecution.txNonce(tx)
    const transactionHash = tx.id as Hex
    // The journaled transaction and those it replaced (same relayer nonce): whichever was mined.
    const candidates = [{ id: transactionHash, raw: rawTransaction }, ...(tx.replaced ?? []).map((t) => ({ id: t.id as Hex, raw: evmSignedExecution.rawTransaction(t) }))]
    const minedOne = async () => {
      for (const c of candidates) {
        const r = await receiptOf(c.id)
        if (r) return { kind: 'settled' as const, receipt: await toExecutionReceipt(parseTransaction(c.raw).data ?? '0x', r) }
      }
      return undefined
    }
    const cannotMine = (detail: string): Reconciliation => {
      unmineable.add(tx.id)
      relayers?.resync()
      return { kind: 'dropped', executed: false, detail }
    }
    try {
      const mined = await minedOne()
      if (mined) return mined
      if (tx.otherInstance) {
        return cannotMine(`transaction ${transactionHash} was signed for another instance of chain ${chain.chainId} (the chain was reset) and is not on this one: it was not executed here and is not sent again; the intent may be sent again`)
      }
      const confirmedNonce = await client.getTransactionCount({ address: tx.relayer as Address, blockTag: 'latest' })
      if (confirmedNonce > txNonce) {
        // The nonce is taken; ours may have been mined between the two reads, so look once more.
        const late = await minedOne()
        if (late) return late
        const executed = await client.readContract({
          address: chain.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'nonceUsed',
          args: [tx.intent.sender as Address, tx.intent.nonce],
        })
        return {
          kind: 'dropped',
          executed,
          detail: executed
            ? `transaction ${transactionHash} was replaced at relayer nonce ${txNonce}; the intent was executed by another transaction`
            : `transaction ${transactionHash} was replaced at relayer nonce ${txNonce} and never mined; the intent was not executed and may be sent again`,
        }
      }
      // The reconciler goes in signing order, so every journaled transaction below this nonce was
      // delivered already: a node whose next nonce is still below ours has a gap nothing fills.
      const nextNonce = await client.getTransactionCount({ address: tx.relayer as Address, blockTag: 'pending' })
      if (nextNonce < txNonce) {
        log.warn({ transactionHash, txNonce, nodeNextNonce: nextNonce }, 'a journaled transaction sits above a nonce gap that nothing fills; settling it as dropped and reading the relayer nonce again')
        return cannotMine(`transaction ${transactionHash} holds relayer nonce ${txNonce} but the chain's next nonce is ${nextNonce} and nothing fills the gap: it can never mine; the intent was not executed and may be sent again`)
      }
      const known = await client.getTransaction({ hash: transactionHash }).catch((err: unknown) => {
        if (err instanceof TransactionNotFoundError) return undefined
        throw err
      })
      if (known) return { kind: 'pending' }
      try {
        await broadcastRaw(client, rawTransaction)
      } catch (err) {
        if (isTransportError(err)) throw err
        // The node answered no: underpriced now, most often (a node drops what the base fee priced out).
        const detail = `the node refuses transaction ${transactionHash} at relayer nonce ${txNonce} as it is: ${err instanceof BaseError ? err.details || err.shortMessage : String(err)}`
        log.warn({ transactionHash, txNonce, detail }, 'the node lost a journaled transaction and refuses it again as it is')
        return { kind: 'refused', detail }
      }
      log.warn({ transactionHash, txNonce }, 'the node had lost a journaled transaction; broadcast it again')
      return { kind: 'rebroadcast' }
    } catch (err) {
      throw classifyRpcError(err, chain.chainId, 'reconciliation of a journaled transaction')
    }
  }

  async function confirmExecuted(tx: Parameters<NonNullable<ChainAdapter['confirmExecuted']>>[0]): Promise<boolean> {
    try {
      const receipt = await receiptOf(tx.id as Hex)
      if (receipt && (tx.blockHash === undefined || receipt.blockHash === tx.blockHash)) return true
      const used = await client.readContract({ address: chain.executor, abi: intentExecutorArtifact.abi, functionName: 'nonceUsed', args: [tx.intent.sender as Address, tx.intent.nonce] })
      if (!used) {
        log.warn({ transactionHash: tx.id, blockNumber: tx.blockNumber?.toString(), blockHash: tx.blockHash }, 'the journal says an intent was executed, but the chain has neither its transaction nor its nonce used (chain reset or reorg); reading the chain instance and the relayer nonce again')
        // Whatever the cache said, the chain moved under us: the relayer's next nonce too.
        await chainInstance(0)
        relayers?.resync()
      }
      return used
    } catch (err) {
      throw classifyRpcError(err, chain.chainId, 'check of a journaled execution')
    }
  }

  async function checkMined(tx: Parameters<NonNullable<ChainAdapter['checkMined']>>[0]): Promise<MinedCheck> {
    try {
      const receipt = await receiptOf(tx.id as Hex)
      if (!receipt) return { kind: 'gone', detail: `transaction ${tx.id} is no longer in the chain (its block ${tx.blockNumber ?? '?'} was reorganized away)` }
      if (tx.blockHash !== undefined && receipt.blockHash !== tx.blockHash) {
        return { kind: 'gone', detail: `block ${tx.blockNumber ?? '?'} (${tx.blockHash}) that held transaction ${tx.id} was reorganized away` }
      }
      const latest = await client.getBlockNumber({ cacheTime: 0 })
      return { kind: 'present', confirmations: Number(latest - receipt.blockNumber + 1n) }
    } catch (err) {
      throw classifyRpcError(err, chain.chainId, 'confirmation check of an execution')
    }
  }

  async function replacement(tx: ReconcileRequest): Promise<Replacement | undefined> {
    // Re-signed with the key that signed it (same relayer nonce), while this instance holds that key.
    const account = relayers?.holds(tx.relayer) ? relayers.accountOf(tx.relayer) : undefined
    if (!account || maxFeePerGas === undefined) return undefined
    const original = parseTransaction(evmSignedExecution.rawTransaction(tx))
    if (original.type !== 'eip1559' || original.maxFeePerGas === undefined || original.maxPriorityFeePerGas === undefined) return undefined
    let baseFee: bigint
    let market: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
    try {
      const pendingBlock = await client.getBlock({ blockTag: 'pending' })
      baseFee = pendingBlock.baseFeePerGas ?? 0n
      market = await client.estimateFeesPerGas()
    } catch (err) {
      throw classifyRpcError(err, chain.chainId, 'fee read for a stuck transaction')
    }
    // Underpriced: it cannot enter the next block at today's base fee.
    if (original.maxFeePerGas >= baseFee) return undefined
    const bump = (v: bigint) => (v * replacementBumpPerMille + 999n) / 1000n
    const priority = [bump(original.maxPriorityFeePerGas), market.maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b))
    const wanted = [bump(original.maxFeePerGas), 2n * baseFee + priority, market.maxFeePerGas].reduce((a, b) => (a > b ? a : b))
    const fee = wanted > maxFeePerGas ? maxFeePerGas : wanted
    if (fee < bump(original.maxFeePerGas) || fee < baseFee) {
      log.warn({ transactionHash: tx.id, maxFeePerGas: original.maxFeePerGas.toString(), baseFee: baseFee.toString(), ceiling: maxFeePerGas.toString() }, 'a stuck transaction cannot be re-priced within the fee ceiling (MAX_FEE_PER_GAS_GWEI); it waits')
      return undefined
    }
    const rawTransaction = await account.signTransaction({
      chainId: viemChain.id,
      type: 'eip1559',
      to: original.to!,
      data: original.data ?? '0x',
      value: original.value ?? 0n,
      gas: original.gas!,
      nonce: original.nonce!,
      maxFeePerGas: fee,
      maxPriorityFeePerGas: priority > fee ? fee : priority,
    })
    const signed = evmSignedExecution.from({ relayer: account.address, txNonce: original.nonce!, rawTransaction })
    return {
      tx: signed,
      detail: `re-priced at relayer nonce ${original.nonce}: max fee ${original.maxFeePerGas} → ${fee} wei per gas (base fee ${baseFee})`,
      async broadcast() {
        try {
          await broadcastRaw(client, rawTransaction)
        } catch (err) {
          throw classifyRpcError(err, chain.chainId, 'broadcast of a re-priced transaction')
        }
      },
    }
  }

  async function prepareExecution(intent: Intent, signature?: Hex, options: ExecutionOptions = {}): Promise<Preflight> {
    assertAvailable()
    const status = await validate(intent, signature)
    if (!isSuccessStatus(status)) {
      return { ok: false, status, detail: status === Status.UNAUTHORIZED ? 'the executor does not accept this signature for this intent: it must be the sender\'s (or a delegate\'s of the policy) EIP-712 signature of the typed data in `signing`' : undefined }
    }
    if (!relayers) throw new Error('prepareExecution called on a chain without a relayer')
    // The lower of the chain's cap and what a paid execute's price covers.
    const priced = options.gasCap !== undefined && (maxGasPerExecution === undefined || options.gasCap < maxGasPerExecution)
    const cap: GasCap | undefined = priced ? { gas: options.gasCap!, by: 'price' } : maxGasPerExecution !== undefined ? { gas: maxGasPerExecution, by: 'chain' } : undefined

    // Unsigned: execute(intent), which the reference executor refuses from anyone but the sender
    // (0xE5); executors with the origin's ABI authorize it their own way.
    const data = signature ? concatHex([executeSignedSelector, encodeSignedIntent(intent, signature)]) : concatHex([executeSelector, encodeIntent(intent)])
    // The key that will send is chosen first, and the simulation runs as the chain will run that
    // transaction: its sender, its fees (an intent whose code reads tx.gasprice behaves alike in
    // both), an explicit gas limit (the cap; fee fields without one make the node check the
    // balance against its block gas cap) and the pending state.
    const { relayer, done } = await relayers.acquire()
    let handedOver = false
    try {
      const fees = await relayer.fees().catch((err: unknown) => {
        throw classifyRpcError(err, chain.chainId, 'fee estimate')
      })
      const simulated = await simulateExecution({ from: relayer.address, data, fees, cap })
      if (!simulated.ok) return simulated
      // Head-room over the estimate, never past the cap: the relayer pays for at most that. An
      // earlier attempt that ran out of the gas we gave it is sent with twice its limit.
      let gasLimit = (simulated.gas * gasMarginPercent) / 100n
      const previousGas = options.previous ? parseTransaction(evmSignedExecution.rawTransaction(options.previous)).gas : undefined
      if (previousGas !== undefined && gasLimit < previousGas * 2n) gasLimit = previousGas * 2n
      if (cap !== undefined && gasLimit > cap.gas) gasLimit = cap.gas
      const limit = gasLimit
      handedOver = true
      return {
        ok: true,
        cancel: done,
        async send({ onSigned }) {
          const sent = await relayer.send({ to: chain.executor, data, gas: limit, fees }, { onSigned }).finally(done)
          const { transactionHash } = sent
          log.info({ transactionHash, relayer: relayer.address, txNonce: sent.txNonce, accepted: sent.accepted, gas: limit.toString() }, 'execute sent')
          // A replacement's receipt never shows under this hash: the record stays pending and
          // reconciliation settles it (dropped, or executed through the replacement).
          const receipt = watchReceipt(transactionHash).then((r) => toExecutionReceipt(data, r, { gasLimit: limit, cap: cap?.gas }))
          return { transactionHash, accepted: sent.accepted, receipt }
        },
      }
    } finally {
      if (!handedOver) done()
    }
  }

  /**
   * eth_estimateGas of the execution as `from` will send it: with its fees, the cap as an explicit
   * gas limit, at the pending state. A revert, or more gas than the cap, sends nothing; a relayer
   * that cannot pay for the cap at these fees is the gateway's problem (502), not the intent's.
   */
  async function simulateExecution({ from, data, fees, cap }: { from: Address; data: Hex; fees: Fees; cap: GasCap | undefined }): Promise<{ ok: true; gas: bigint } | { ok: false; status: number; detail: string | undefined }> {
    try {
      const gas = await client.estimateGas({ account: from, to: chain.executor, data, ...(cap !== undefined ? { gas: cap.gas } : {}), maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas, blockTag: 'pending' } as never)
      if (cap !== undefined && gas > cap.gas) return overCap(gas, cap)
      return { ok: true, gas }
    } catch (err) {
      const decoded = decodeExecutorRevert(err)
      if (decoded?.status === Status.SIGNATURE_REQUIRED) {
        return { ok: false, status: decoded.status, detail: 'the executor runs a relayed intent only with its sender\'s signature: sign the typed data in `signing` and send it as `signature`' }
      }
      if (decoded) return { ok: false, ...decoded }
      if (isGasAboveAllowance(err)) {
        // A node bounds the search by what the sender can pay at these fees: a short relayer looks
        // like an intent that needs too much gas.
        const balance = await client.getBalance({ address: from }).catch(() => undefined)
        const needed = (cap?.gas ?? 1_000_000n) * fees.maxFeePerGas
        if (balance !== undefined && balance < needed) {
          throw new RelayerError('The relayer wallet cannot pay for gas', { cause: err, details: `relayer ${from} is out of funds: it holds ${balance} wei, less than the ${needed} wei the gas limit of ${cap?.gas ?? 1_000_000n} costs at ${fees.maxFeePerGas} wei per gas` })
        }
        if (cap !== undefined) return overCap(undefined, cap)
      }
      throw classifyRpcError(err, chain.chainId, 'simulation of execute')
    }
  }
  const overCap = (gas: bigint | undefined, cap: GasCap) => ({
    ok: false as const,
    status: Status.UPPER_LIMIT,
    detail: `the execution needs ${gas === undefined ? 'more gas than' : `an estimated ${gas} gas, above`} ${cap.by === 'price' ? `the ${cap.gas} gas its price covers (maxGas in X402_PRICES)` : `this gateway's limit of ${cap.gas} per execution (MAX_GAS_PER_EXECUTION)`}`,
  })

  return {
    chainId: chain.chainId,
    chainType: 'evm',
    runtime: evmRuntime,
    canExecute: relayers !== undefined,
    confirmations,
    executorAddress: chain.executor,
    ...(relayers
      ? {
          relayerBalance: async () => (await Promise.all(relayers.addresses.map((address) => client.getBalance({ address })))).reduce((a, b) => a + b, 0n),
          holdsRelayer: (relayer: string) => relayers.holds(relayer),
          canSendNow: () => relayers.canSendNow(),
        }
      : {}),
    validate,
    prepareExecution,
    reconcile,
    sequenceOf: evmSignedExecution.txNonce,
    chainInstance: () => chainInstance(),
    confirmExecuted,
    checkMined,
    replacement,
    fundingShortfall: (intent) => readFundingShortfall({ client, executor: chain.executor as Address, registry: chain.registry as Address, intent }),
    signingRequest(intent) {
      return toJson(intentTypedData({ chainId: viemChain.id, executor: chain.executor, intent }))
    },
    getHealth: () =>
      probeHealth({
        chainId: chain.chainId,
        chainType: 'evm',
        unavailableReason,
        latest: () => client.getBlockNumber({ cacheTime: 0 }),
        classify: (err) => classifyRpcError(err, chain.chainId, 'block number request'),
      }),
    async preflight(): Promise<PreflightResult> {
      await relayers?.start().catch((err: unknown) => log.warn({ err }, 'relayer leases or balances could not be read at start-up; tried again in the background'))
      const contracts = { validator: chain.validator, executor: chain.executor, registry: chain.registry }
      try {
        const codes = await Promise.all(Object.values(contracts).map((address) => client.getCode({ address })))
        const missing = Object.entries(contracts).filter((_, i) => !codes[i] || codes[i] === '0x').map(([name, address]) => `${name} ${address}`)
        return missing.length === 0 ? { ok: true } : { ok: false, missing }
      } catch (err) {
        return { ok: false, unreachable: classifyRpcError(err, chain.chainId, 'code lookup').shortMessage }
      }
    },
    markUnavailable(reason) {
      unavailableReason = reason
      log.error({ reason }, `chain ${chain.chainId} is unavailable`)
    },
    describe() {
      return {
        chainId: chain.chainId,
        chainType: 'evm',
        reference: chain.reference,
        name: chain.name,
        nativeCurrency: chain.nativeCurrency,
        contracts: { validator: chain.validator, executor: chain.executor, registry: chain.registry },
        relayer: relayers?.addresses[0],
        relayers: relayers?.view().map((r) => ({ ...r, signer: signerOf.get(r.address.toLowerCase()) ?? 'local' })),
        available: !unavailableReason,
        unavailableReason,
        endpoints: pool.endpoints(),
        signing: { domain: intentDomain({ chainId: viemChain.id, executor: chain.executor }), types: intentTypes, primaryType: 'Intent' },
      }
    },
    async close() {
      // Receipt waits end (the reconciler of the next start finishes them).
      receipts.close()
      await relayers?.close()
      await pool.close()
    },
  }
}

/** Typed data as JSON: integers as decimal strings, and the EIP712Domain type wallets' eth_signTypedData_v4 wants. */
function toJson(typedData: ReturnType<typeof intentTypedData>) {
  const { message } = typedData
  return {
    domain: typedData.domain,
    types: { EIP712Domain: eip712DomainType, ...typedData.types },
    primaryType: typedData.primaryType,
    message: { ...message, value: message.value.toString(), nonce: message.nonce.toString(), validAfter: message.validAfter.toString(), validBefore: message.validBefore.toString() },
  }
}

const eip712DomainType = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

/** The node's gas search found no limit up to the one given that runs the call (geth: "gas required exceeds allowance"). */
function isGasAboveAllowance(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const { message, details } = e as { message?: unknown; details?: unknown }
    if (/gas required exceeds|exceeds allowance|out of gas|intrinsic gas too low/i.test(`${String(message ?? '')} ${String(details ?? '')}`)) return true
  }
  return false
}

/** A node that does not offer the method (not a dev node): JSON-RPC -32601, or a message saying so. */
function isUnknownMethod(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const { code, message, details } = e as { code?: unknown; message?: unknown; details?: unknown }
    if (code === -32601 || code === -32600) return true
    if (/method not found|not supported|does not exist|unknown method|not available/i.test(`${String(message ?? '')} ${String(details ?? '')}`)) return true
  }
  return false
}
