// What one IntentBundler run did to each of its calls, read from its logs in the order the chain
// wrote them (a mined receipt's, or a simulation's): a call's own logs come before the bundler's
// `Ran` log for it, and a `LeftUnrun` log ends the run. Each call is then one of:
// - executed: it returned, and its target logged the intent's IntentExecuted (the status it gives);
// - silent: it returned without one (an account whose EIP-7702 authorization was skipped): not the
//   intent's outcome;
// - reverted: its revert, decoded as the executor's (ExecutionDenied, ExecutionFailed), is the
//   intent's outcome. The bundler keeps the first REVERT_DATA_CAP bytes, which hold the status;
// - out of gas: it used up the limit the relayer gave it: not the intent's outcome, to be sent again
//   with a higher limit;
// - unrun: the bundle could not give it its limit (or the bundle itself reverted): sent again.
import { decodeAbiParameters, type Hex, hexToNumber, toEventSelector, toFunctionSelector } from 'viem'
import { intentBundlerArtifact } from '../../contracts/intentBundlerArtifact.ts'
import { Status } from '../../status/statusCodes.ts'
import { decodeRevertData } from './decodeExecutorRevert.ts'
import { readIntentExecuted } from './intentExecutedLog.ts'

type Log = { address: string; topics: readonly Hex[]; data: Hex }

/**
 * A call of the bundle as the relayer made it: whom it called and the gas limit it gave it, and the
 * intent's hash where known (its IntentExecuted must then name it).
 */
export type BundledCall = { target: string; gasLimit: bigint; intentHash?: Hex | undefined }

/** An execution's place in a bundle: the bundler the transaction called, the bundle's calls as the relayer made them, and its own index. */
export type BundleMembership = { bundler: string; calls: readonly BundledCall[]; index: number }

export type BundledCallOutcome = { index: number } & (
  | { kind: 'executed'; gasUsed: bigint; status: number; returnData: Hex }
  | { kind: 'silent'; gasUsed: bigint }
  | { kind: 'reverted'; gasUsed: bigint; status: number; detail: string; revertData: Hex }
  | {
      kind: 'outOfGas'
      gasUsed: bigint
      detail: string
      /** What it reverted with, as `reverted` would say: its outcome after all where its limit was the intent's cap. */
      revert: { status: number; detail: string }
    }
  | { kind: 'unrun'; detail: string }
)

const eventTopic = (name: string) => {
  const event = intentBundlerArtifact.abi.find((item) => item.type === 'event' && item.name === name)
  if (event?.type !== 'event') throw new Error(`${name} missing from the bundler ABI`)
  return toEventSelector(event)
}
const ranTopic = eventTopic('Ran')
const leftUnrunTopic = eventTopic('LeftUnrun')
const ranFields = [{ type: 'uint256' }, { type: 'bool' }, { type: 'uint256' }, { type: 'bytes' }] as const
const leftUnrunFields = [{ type: 'uint256' }, { type: 'uint256' }] as const

/** IntentBundler's REVERT_DATA_CAP: the most bytes of a revert its Ran log carries (a test reads the contract's). */
export const revertDataCap = 1024
/** The executor's errors, whose status is their first word's first byte: a revert cut at the cap still says it. */
const executorErrors = new Set(
  ['ExecutionDenied(bytes1)', 'ExecutionFailed(bytes1,bytes)'].map((e) => toFunctionSelector(e)),
)

/**
 * Each call's outcome, in the calls' order. `status`: the transaction's; a reverted bundle ran
 * nothing (every call unrun). Logs of the bundler that are not its own events are ignored.
 */
export function readBundleOutcomes({
  bundler,
  calls,
  status,
  logs,
}: {
  bundler: string
  calls: readonly BundledCall[]
  status: 'success' | 'reverted'
  logs: readonly Log[]
}): BundledCallOutcome[] {
  if (status === 'reverted')
    return calls.map((_, index) => ({
      index,
      kind: 'unrun',
      detail: 'the bundle reverted as a whole: no call of it ran; not the intent’s outcome',
    }))
  const self = bundler.toLowerCase()
  const outcomes: BundledCallOutcome[] = []
  let since: Log[] = []
  let leftUnrun = false
  for (const log of logs) {
    if (log.address.toLowerCase() !== self) {
      since.push(log)
      continue
    }
    if (log.topics[0] === ranTopic) {
      const [index, success, gasUsed, revertData] = decodeAbiParameters(ranFields, log.data)
      const i = Number(index)
      const call = calls[i]
      if (!call) throw new Error(`the bundle logged call ${i}, which is not one of its ${calls.length} calls`)
      if (i !== outcomes.length) throw new Error(`the bundle logged call ${i} where call ${outcomes.length} was due`)
      outcomes.push(success ? executedOrSilent(i, gasUsed, call, since) : failed(i, gasUsed, call, revertData))
      since = []
    } else if (log.topics[0] === leftUnrunTopic) {
      const [fromIndex] = decodeAbiParameters(leftUnrunFields, log.data)
      if (Number(fromIndex) !== outcomes.length)
        throw new Error(`the bundle left calls from ${fromIndex} unrun where call ${outcomes.length} was due`)
      leftUnrun = true
      break
    }
  }
  // A run that succeeded logs every call it was given, or says where it stopped: anything else is not this bundle's log.
  if (!leftUnrun && outcomes.length < calls.length)
    throw new Error(
      `the bundle logged ${outcomes.length} of its ${calls.length} calls and did not say it left the rest unrun`,
    )
  for (let index = outcomes.length; index < calls.length; index++)
    outcomes.push({
      index,
      kind: 'unrun',
      detail: 'the bundle had too little gas left to give this call its limit: not run, not the intent’s outcome',
    })
  return outcomes
}

function executedOrSilent(index: number, gasUsed: bigint, call: BundledCall, logs: Log[]): BundledCallOutcome {
  const target = call.target.toLowerCase()
  const hash = call.intentHash?.toLowerCase()
  for (const log of logs) {
    if (log.address.toLowerCase() !== target || (hash !== undefined && log.topics[1]?.toLowerCase() !== hash)) continue
    const executed = readIntentExecuted(log)
    if (executed)
      return { index, kind: 'executed', gasUsed, status: hexToNumber(executed.status), returnData: executed.returnData }
  }
  return { index, kind: 'silent', gasUsed }
}

function failed(index: number, gasUsed: bigint, call: BundledCall, revertData: Hex): BundledCallOutcome {
  const revert =
    revertData.length === 2 + 2 * revertDataCap && executorErrors.has(revertData.slice(0, 10) as Hex)
      ? {
          status: hexToNumber(`0x${revertData.slice(10, 12)}` as Hex),
          detail: `the executor refused the intent or its target call reverted (${revertData.slice(0, 10)}; the revert data cut at ${revertDataCap} bytes)`,
        }
      : (decodeRevertData(revertData) ?? {
          status: Status.FAILURE as number,
          detail: 'the call reverted without revert data (a revert without a reason)',
        })
  // With its limit used up (the call's own cost on top), it ran out of the gas we gave it, whatever
  // it reverted with: a target out of gas inside the executor comes back as the executor's
  // ExecutionFailed, as in a transaction of its own (executionReceipt.ts).
  if (gasUsed * 64n >= call.gasLimit * 63n)
    return {
      index,
      kind: 'outOfGas',
      gasUsed,
      revert,
      detail: `the call used up the gas limit of ${call.gasLimit} this gateway gave it in the bundle (${revert.detail}); not the intent's outcome: it is sent again with a higher limit`,
    }
  return { index, kind: 'reverted', gasUsed, revertData, ...revert }
}

/**
 * What each call cost: its own gas (from just before it to just after it, in the bundle) and an
 * equal share of the rest of the transaction's (its base cost, calldata and the bundler's own work),
 * shared by the calls that ran. Unrun calls cost nothing.
 */
export function gasShares(outcomes: readonly BundledCallOutcome[], transactionGas: bigint): bigint[] {
  const ran = outcomes.filter((o) => o.kind !== 'unrun') as (BundledCallOutcome & { gasUsed: bigint })[]
  const own = ran.reduce((sum, o) => sum + o.gasUsed, 0n)
  const rest = transactionGas > own ? transactionGas - own : 0n
  const n = BigInt(ran.length)
  let remainder = n > 0n ? rest % n : 0n
  return outcomes.map((o) => {
    if (o.kind === 'unrun') return 0n
    const extra = remainder > 0n ? 1n : 0n
    remainder -= extra
    return o.gasUsed + rest / n + extra
  })
}
