// An execution's outcome from its receipt. A revert is decoded from the transaction as it ran: its
// trace where the node has one, else its call replayed on its parent block with its own sender,
// fees and gas limit.
import {
  type Abi,
  type AbiFunction,
  type AbiParameter,
  decodeFunctionData,
  encodeAbiParameters,
  type Hex,
  hexToNumber,
  keccak256,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem'
import { intentAccountArtifact } from '../../../contracts/intentAccountArtifact.ts'
import type { ExecutionReceipt } from '../../../ports/chainAdapter.ts'
import { Status } from '../../../status/statusCodes.ts'
import { type DecodedRevert, decodeExecutorRevert, decodeRevertData } from '../decodeExecutorRevert.ts'
import { readIntentExecuted } from '../intentExecutedLog.ts'
import type { EvmContext } from './evmContext.ts'
import { isUnknownMethod } from './nodeErrors.ts'

/** What a receipt's transaction and gas say of an execution, whatever its outcome. */
type ReceiptBase = Pick<ExecutionReceipt, 'transactionHash' | 'blockNumber' | 'blockHash' | 'gasUsed' | 'fee'>

/**
 * Mined without the intent's IntentExecuted (account mode: an authorization skipped; a bundle's call
 * that returned without it): the intent did not run. `0x10`, and not the intent's outcome.
 */
export const notExecuted = (base: ReceiptBase, detail: string): ExecutionReceipt => ({
  ...base,
  state: 'mined',
  status: Status.DISALLOWED,
  returnData: undefined,
  notExecuted: true,
  detail,
})

/**
 * `gas` (when this gateway chose the limit): a revert that used up a limit below the cap ran out of
 * the gas *we* gave it, which is not the intent's outcome.
 */
export async function toExecutionReceipt(
  ctx: EvmContext,
  calldata: Hex,
  receipt: TransactionReceipt,
  gas?: { gasLimit: bigint; cap: bigint | undefined },
): Promise<ExecutionReceipt> {
  const base = {
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    gasUsed: receipt.gasUsed,
    fee: receipt.gasUsed * receipt.effectiveGasPrice,
  }
  const account =
    receipt.to && receipt.to.toLowerCase() !== ctx.chain.executor.toLowerCase() ? receipt.to.toLowerCase() : undefined
  if (receipt.status === 'success' && account) {
    // Account mode: EIP-7702 skips an invalid authorization and still runs the call, which then
    // hits a code-less EOA and "succeeds". Executed only with IntentExecuted for this intent's hash
    // emitted by the sender's own address.
    const intentHash = accountIntentHash(calldata)
    const log = receipt.logs.find(
      (l) => l.address.toLowerCase() === account && l.topics[1]?.toLowerCase() === intentHash,
    )
    const executed = log && readIntentExecuted(log)
    if (executed)
      return {
        ...base,
        state: 'mined',
        status: hexToNumber(executed.status),
        returnData: executed.returnData,
        detail: undefined,
      }
    return notExecuted(
      base,
      `the transaction was mined but the intent did not run: no IntentExecuted from the sender ${receipt.to} (its authorization was skipped, or its code is not this chain's account delegate); not the intent's outcome: the next execute needs a new authorization`,
    )
  }
  if (receipt.status === 'success') {
    const executor = ctx.chain.executor.toLowerCase()
    const executed = receipt.logs.reduce<ReturnType<typeof readIntentExecuted>>(
      (found, l) => found ?? (l.address.toLowerCase() === executor ? readIntentExecuted(l) : undefined),
      undefined,
    )
    return {
      ...base,
      state: 'mined',
      status: executed ? hexToNumber(executed.status) : Status.EXECUTED,
      returnData: executed?.returnData,
      detail: undefined,
    }
  }
  const outOfGas =
    gas !== undefined &&
    (gas.cap === undefined || gas.gasLimit < gas.cap) &&
    receipt.gasUsed * 64n >= gas.gasLimit * 63n
  const decoded = (await revertReason(ctx, calldata, receipt)) ?? {
    status: Status.FAILURE as number,
    detail: 'the transaction reverted on-chain without revert data (out of gas, or a revert without a reason)',
  }
  if (outOfGas) {
    return {
      ...base,
      state: 'reverted',
      returnData: undefined,
      status: decoded.status,
      outOfGas: true,
      detail: `the transaction used up the gas limit of ${gas.gasLimit} this gateway gave it (${decoded.detail}); not the intent's outcome: it is sent again with a higher limit`,
    }
  }
  return { ...base, state: 'reverted', returnData: undefined, ...decoded }
}

/** Why a mined transaction reverted, read from the state it met. */
async function revertReason(
  { pool, client, chain, log, state }: EvmContext,
  calldata: Hex,
  receipt: TransactionReceipt,
): Promise<DecodedRevert | undefined> {
  if (state.traces !== false) {
    try {
      const frame = (await pool.request({
        method: 'debug_traceTransaction',
        params: [receipt.transactionHash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }],
      })) as {
        output?: Hex
        error?: string
      } | null
      state.traces = true
      if (frame?.output && frame.output.length >= 10) return decodeRevertData(frame.output)
      if (frame?.error) return { status: Status.FAILURE, detail: `the transaction reverted on-chain: ${frame.error}` }
      return undefined
    } catch (err) {
      if (isUnknownMethod(err)) state.traces = false
      else
        log.debug(
          { err, transactionHash: receipt.transactionHash },
          'trace of a reverted transaction failed; replaying its call instead',
        )
    }
  }
  try {
    const tx = await client.getTransaction({ hash: receipt.transactionHash })
    await client.call({
      account: receipt.from,
      to: receipt.to ?? chain.executor,
      data: calldata,
      gas: tx.gas,
      ...(tx.maxFeePerGas !== undefined
        ? { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas }
        : { gasPrice: tx.gasPrice }),
      blockNumber: receipt.blockNumber - 1n,
    })
    return undefined
  } catch (err) {
    return decodeExecutorRevert(err)
  }
}

/** The receipt of a transaction, or undefined while the chain has none. */
export async function receiptOf({ client }: EvmContext, transactionHash: Hex): Promise<TransactionReceipt | undefined> {
  try {
    return await client.getTransactionReceipt({ hash: transactionHash })
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return undefined
    throw err
  }
}

const accountAbi: Abi = intentAccountArtifact.abi
const inputOf = (name: string): AbiParameter =>
  accountAbi.find((i): i is AbiFunction => i.type === 'function' && i.name === name)!.inputs[0]!
const executeIntentInput = inputOf('executeIntent')
const executeBatchInput = inputOf('executeBatch')

/**
 * keccak256(abi.encode(intent)) of an executeIntent call, keccak256(abi.encode(batch)) of an
 * executeBatch call: the hash its IntentExecuted carries; undefined for any other call.
 */
function accountIntentHash(calldata: Hex): string | undefined {
  try {
    const { functionName, args } = decodeFunctionData({ abi: intentAccountArtifact.abi, data: calldata })
    if (functionName !== 'executeIntent' && functionName !== 'executeBatch') return undefined
    const input = functionName === 'executeIntent' ? executeIntentInput : executeBatchInput
    return keccak256(encodeAbiParameters([input], [args[0]])).toLowerCase()
  } catch {
    return undefined
  }
}
