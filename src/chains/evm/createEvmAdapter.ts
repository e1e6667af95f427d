// The EVM implementation of the ChainAdapter port: validator reads, preflight simulation and
// execution through the relayer, over one viem client per chain.
import type { Logger } from 'pino'
import {
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
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
  toFunctionSelector,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { ResolvedChain } from '../discovery/resolveChains.ts'
import { createEndpointPool } from './createEndpointPool.ts'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'
import { intentValidatorArtifact } from '../../contracts/intentValidatorArtifact.ts'
import type { Intent } from '../../intents/intent.ts'
import { broadcastRaw, createRelayer } from '../../relayer/createRelayer.ts'
import { isSuccessStatus, Status } from '../../status/statusCodes.ts'
import type { ChainAdapter, ExecutionReceipt, Preflight, PreflightResult, Reconciliation, SignedExecution } from '../chainAdapter.ts'
import { probeHealth } from '../probeHealth.ts'
import type { RpcRecorder } from '../../metrics/createMetrics.ts'
import { evmSignedExecution } from './evmSignedExecution.ts'
import { classifyRpcError } from './classifyRpcError.ts'
import { decodeExecutorRevert } from './decodeExecutorRevert.ts'
import { encodeIntent, toIntentTuple } from './evmRuntime.ts'
import { intentDomain, intentTypedData, intentTypes } from './intentTypedData.ts'

export type CreateEvmAdapterParameters = {
  chain: ResolvedChain
  relayerPrivateKey: Hex | undefined
  rpcTimeoutMs: number
  pollingIntervalMs: number
  logger: Logger
  /**
   * The journal's signed, unsettled transactions of this relayer on this chain: the relayer never
   * reuses a nonce one of them holds.
   */
  unsettledTransactions?: (relayer: string) => Promise<readonly SignedExecution[]>
  /** The most gas the relayer pays for one execution; above it, 422 (0x06) and nothing is sent. */
  maxGasPerExecution?: bigint | undefined
  /** Told the duration and failure of every RPC call (metrics). */
  rpcRecorder?: RpcRecorder | undefined
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

/** Head-room over the estimate: state can move between estimate and inclusion. */
const gasMarginPercent = 120n
/** How long a request's own watch on its transaction lasts; reconciliation takes over after it. */
const receiptWatchLimitMs = 15 * 60_000

export function createEvmAdapter({ chain: resolved, relayerPrivateKey, rpcTimeoutMs, pollingIntervalMs, logger, unsettledTransactions, maxGasPerExecution, rpcRecorder }: CreateEvmAdapterParameters): ChainAdapter {
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
  const client: PublicClient = createPublicClient({
    chain: viemChain,
    transport: custom({ request: pool.request }, { retryCount: 0 }),
    pollingInterval: pollingIntervalMs,
    cacheTime: 0,
  })
  const account = relayerPrivateKey ? privateKeyToAccount(relayerPrivateKey) : undefined
  // New transactions go above the highest nonce an unsettled journaled one holds.
  const nonceFloor = unsettledTransactions && account
    ? async () => {
        const nonces = (await unsettledTransactions(account.address)).map(evmSignedExecution.txNonce)
        return nonces.length === 0 ? undefined : Math.max(...nonces) + 1
      }
    : undefined
  const relayer = account ? createRelayer({ account, client, chainId: viemChain.id, logger: log, nonceFloor }) : undefined
  let unavailableReason: string | undefined
  log.info({ relayer: account?.address ?? null, endpoints: chain.endpoints.length }, 'chain configured')

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
      // A plain eth_call on the shared encoding: the hot path of every request.
      result = (await pool.request({ method: 'eth_call', params: [{ to: call.to, data: call.data }, 'latest'] })) as Hex
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

  /** The execution's outcome from its receipt (and, for a revert, a replay of its call data). */
  async function toExecutionReceipt(calldata: Hex, receipt: TransactionReceipt): Promise<ExecutionReceipt> {
    const base = { transactionHash: receipt.transactionHash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed }
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
    // A receipt carries no revert data: replay the call on the state the block left behind.
    let decoded = { status: Status.FAILURE as number, detail: 'the transaction reverted on-chain; the reason could not be recovered' }
    try {
      const { functionName, args } = decodeFunctionData({ abi: intentExecutorArtifact.abi, data: calldata })
      await client.simulateContract({ account: receipt.from, address: chain.executor, abi: intentExecutorArtifact.abi, functionName, args, blockNumber: receipt.blockNumber } as never)
    } catch (err) {
      decoded = decodeExecutorRevert(err) ?? decoded
    }
    return { ...base, state: 'reverted', returnData: undefined, ...decoded }
  }

  async function receiptOf(transactionHash: Hex): Promise<TransactionReceipt | undefined> {
    try {
      return await client.getTransactionReceipt({ hash: transactionHash })
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) return undefined
      throw err
    }
  }

  async function reconcile(tx: Parameters<ChainAdapter['reconcile']>[0]): Promise<Reconciliation> {
    assertAvailable()
    const rawTransaction = evmSignedExecution.rawTransaction(tx)
    const txNonce = evmSignedExecution.txNonce(tx)
    const transactionHash = tx.id as Hex
    try {
      const calldata = parseTransaction(rawTransaction).data ?? '0x'
      const mined = await receiptOf(transactionHash)
      if (mined) return { kind: 'settled', receipt: await toExecutionReceipt(calldata, mined) }
      const confirmedNonce = await client.getTransactionCount({ address: tx.relayer as Address, blockTag: 'latest' })
      if (confirmedNonce > txNonce) {
        // The nonce is taken; ours may have been mined between the two reads, so look once more.
        const late = await receiptOf(transactionHash)
        if (late) return { kind: 'settled', receipt: await toExecutionReceipt(calldata, late) }
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
      const known = await client.getTransaction({ hash: transactionHash }).catch((err: unknown) => {
        if (err instanceof TransactionNotFoundError) return undefined
        throw err
      })
      if (known) return { kind: 'pending' }
      await broadcastRaw(client, rawTransaction)
      log.warn({ transactionHash, txNonce }, 'the node had lost a journaled transaction; broadcast it again')
      return { kind: 'rebroadcast' }
    } catch (err) {
      throw classifyRpcError(err, chain.chainId, 'reconciliation of a journaled transaction')
    }
  }

  async function prepareExecution(intent: Intent, signature?: Hex): Promise<Preflight> {
    assertAvailable()
    const status = await validate(intent, signature)
    if (!isSuccessStatus(status)) {
      return { ok: false, status, detail: status === Status.UNAUTHORIZED ? 'the executor does not accept this signature for this intent: it must be the sender\'s (or a delegate\'s of the policy) EIP-712 signature of the typed data in `signing`' : undefined }
    }
    if (!relayer) throw new Error('prepareExecution called on a chain without a relayer')

    // Unsigned: execute(intent), which the reference executor refuses from anyone but the sender
    // (0xE5); executors with the origin's ABI authorize it their own way.
    const data = signature ? concatHex([executeSignedSelector, encodeSignedIntent(intent, signature)]) : concatHex([executeSelector, encodeIntent(intent)])
    let gas: bigint
    try {
      // Simulates the execution as the relayer would send it; a revert here sends nothing.
      const call = signature ? { functionName: 'executeSigned', args: [toIntentTuple(intent), signature] } : { functionName: 'execute', args: [toIntentTuple(intent)] }
      gas = await client.estimateContractGas({ account: relayer.address, address: chain.executor, abi: intentExecutorArtifact.abi, ...call } as never)
    } catch (err) {
      const decoded = decodeExecutorRevert(err)
      if (decoded?.status === Status.SIGNATURE_REQUIRED) {
        return { ok: false, status: decoded.status, detail: 'the executor runs a relayed intent only with its sender\'s signature: sign the typed data in `signing` and send it as `signature`' }
      }
      if (decoded) return { ok: false, ...decoded }
      throw classifyRpcError(err, chain.chainId, 'simulation of execute')
    }
    if (maxGasPerExecution !== undefined && gas > maxGasPerExecution) {
      return { ok: false, status: Status.UPPER_LIMIT, detail: `the execution needs an estimated ${gas} gas, above this gateway's limit of ${maxGasPerExecution} per execution (MAX_GAS_PER_EXECUTION)` }
    }
    // Head-room over the estimate, but never past the cap: the relayer pays for at most that.
    const withMargin = (gas * gasMarginPercent) / 100n
    const gasLimit = maxGasPerExecution !== undefined && withMargin > maxGasPerExecution ? maxGasPerExecution : withMargin
    return {
      ok: true,
      async send({ onSigned }) {
        const sent = await relayer.send({ to: chain.executor, data, gas: gasLimit }, { onSigned })
        const { transactionHash } = sent
        log.info({ transactionHash, txNonce: sent.txNonce, accepted: sent.accepted }, 'execute sent')
        const receipt = client
          .waitForTransactionReceipt({ hash: transactionHash, timeout: receiptWatchLimitMs })
          .then((r) => {
            // viem follows a replacement to its receipt: that is not our execution. The record
            // stays pending and reconciliation settles it as dropped (or executed elsewhere).
            if (r.transactionHash !== transactionHash) throw new Error(`transaction ${transactionHash} was replaced by ${r.transactionHash}`)
            return toExecutionReceipt(data, r)
          })
        return { transactionHash, accepted: sent.accepted, receipt }
      },
    }
  }

  return {
    chainId: chain.chainId,
    chainType: 'evm',
    canExecute: relayer !== undefined,
    executorAddress: chain.executor,
    ...(relayer ? { relayerBalance: () => client.getBalance({ address: relayer.address }) } : {}),
    validate,
    prepareExecution,
    reconcile,
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
        relayer: account?.address,
        available: !unavailableReason,
        unavailableReason,
        endpoints: pool.endpoints(),
        signing: { domain: intentDomain({ chainId: viemChain.id, executor: chain.executor }), types: intentTypes, primaryType: 'Intent' },
      }
    },
    close: () => pool.close(),
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
