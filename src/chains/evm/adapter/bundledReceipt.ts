// A bundle's receipt read for one of its calls: an execution sent as a call of IntentBundler's run
// (contracts/IntentBundler.sol) has the outcome of its own call (bundleOutcomes.ts), and pays its
// share of the transaction's gas. The bundle's other calls are not its outcome, whatever they did.
import { decodeFunctionData, encodeAbiParameters, type Hex, keccak256, type TransactionReceipt } from 'viem'
import { intentBundlerArtifact } from '../../../contracts/intentBundlerArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import type { ExecutionReceipt } from '../../../ports/chainAdapter.ts'
import { Status } from '../../../status/statusCodes.ts'
import {
  type BundledCall,
  type BundledCallOutcome,
  type BundleMembership,
  gasShares,
  readBundleOutcomes,
} from '../bundleOutcomes.ts'
import { intentAbiParameter } from '../intentAbi.ts'
import { notExecuted } from './executionReceipt.ts'

export type { BundleMembership }

type Read = { outcomes: BundledCallOutcome[]; shares: bigint[] }
/** Each receipt is read once for all the calls of its bundle (their waits share the watch's receipt). */
const reads = new WeakMap<TransactionReceipt, WeakMap<readonly BundledCall[], Read>>()

/**
 * The execution's outcome from its bundle's receipt:
 * - executed (its own IntentExecuted): mined, with the status it logged;
 * - reverted: the executor's code (the intent's outcome);
 * - out of the gas it was given (below `cap`), or left unrun (the bundle could not give it its limit,
 *   or reverted as a whole): `outOfGas`, not the intent's outcome: its nonce is unused, and it may be
 *   sent again; out of a limit at `cap`, its revert is its outcome;
 * - returned without its IntentExecuted: `notExecuted`, not the intent's outcome either.
 * Its gas is its own and an even share of the rest of the transaction's (gasShares), and its fee
 * that gas at the transaction's price, so that the fees of a bundle's calls add up to what it cost.
 */
export function bundledReceipt(
  receipt: TransactionReceipt,
  member: BundleMembership,
  /** The most gas the intent may be given (the execution's cap): a call out of a limit at it was given all it may have, and its revert is its outcome. */
  cap?: bigint,
): ExecutionReceipt {
  if (receipt.to?.toLowerCase() !== member.bundler.toLowerCase())
    throw new Error(`transaction ${receipt.transactionHash} did not call the bundler ${member.bundler}`)
  const call = member.calls[member.index]
  if (!call) throw new Error(`call ${member.index} is not one of the bundle's ${member.calls.length}`)
  let byCalls = reads.get(receipt)
  if (!byCalls) reads.set(receipt, (byCalls = new WeakMap()))
  let read = byCalls.get(member.calls)
  if (!read) {
    const outcomes = readBundleOutcomes({
      bundler: member.bundler,
      calls: member.calls,
      status: receipt.status,
      logs: receipt.logs,
    })
    read = { outcomes, shares: gasShares(outcomes, receipt.gasUsed) }
    byCalls.set(member.calls, read)
  }
  const outcome = read.outcomes[member.index]!
  const gasUsed = read.shares[member.index]!
  const base = {
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    gasUsed,
    fee: gasUsed * receipt.effectiveGasPrice,
  }
  switch (outcome.kind) {
    case 'executed':
      return { ...base, state: 'mined', status: outcome.status, returnData: outcome.returnData, detail: undefined }
    case 'reverted':
      return { ...base, state: 'reverted', status: outcome.status, returnData: undefined, detail: outcome.detail }
    case 'outOfGas':
    case 'unrun':
      if (outcome.kind === 'outOfGas' && cap !== undefined && call.gasLimit >= cap)
        return { ...base, state: 'reverted', returnData: undefined, ...outcome.revert }
      return {
        ...base,
        state: 'reverted',
        status: Status.GATEWAY_FAILURE,
        returnData: undefined,
        outOfGas: true,
        detail: outcome.detail,
      }
    case 'silent':
      return notExecuted(
        base,
        `call ${member.index} of the bundle returned without the intent's IntentExecuted: the intent did not run; not its outcome`,
      )
  }
}

/**
 * The calls of a bundle's calldata (IntentBundler's `run`), each with the hash its executor's
 * IntentExecuted carries when it is an `executeSigned`: what a record read back from the journal
 * (which keeps the bundle's bytes, not its calls) reads its receipt with.
 */
export function bundleCallsOf(data: Hex): BundledCall[] {
  const { functionName, args } = decodeFunctionData({ abi: intentBundlerArtifact.abi, data })
  if (functionName !== 'run') throw new Error(`not a bundle: ${functionName}`)
  return args[0].map((call) => ({
    target: call.target,
    gasLimit: call.gasLimit,
    intentHash: executedHashOf(call.data),
  }))
}

/** keccak256(abi.encode(intent)) of an executeSigned call; undefined for any other call. */
function executedHashOf(data: Hex): Hex | undefined {
  try {
    const decoded = decodeFunctionData({ abi: intentExecutorArtifact.abi, data })
    if (decoded.functionName !== 'executeSigned') return undefined
    return keccak256(encodeAbiParameters([intentAbiParameter], [decoded.args[0]]))
  } catch {
    return undefined
  }
}
