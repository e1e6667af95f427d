// The execution simulated as the chain will run it (docs/api-contract.md §14): from the relayer key
// that will send, with its fees, an explicit gas limit, at the pending state. A revert, or more gas
// than the cap, sends nothing; a relayer that cannot pay for the cap at these fees is the gateway's
// problem (502), not the intent's.
//
// Where the node offers eth_simulateV1 (anvil, geth, reth), usually one node execution: at a limit
// from the gas the last execution of the same shape used (plus 10%). When it succeeds there and
// that limit has the head-room (64/63 for EIP-150, then 20%) and no more than a quarter over it, the
// limit is confirmed as it will be sent. Otherwise two: one at the cap, which gives the gas used
// (or the revert), then one at the limit that will be sent, which confirms it. Simulations of
// concurrent executes go to the node together (simulationBatcher.ts). eth_estimateGas (a search of
// ~15–20 executions) is the fallback: for a node without eth_simulateV1, a revert without data to
// decode, or a limit the confirmation refuses.
import { type Hex, numberToHex } from 'viem'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { decodeRevertData } from '../decodeExecutorRevert.ts'
import type { EvmContext } from './evmContext.ts'
import {
  estimateExecution,
  isShortOfFunds,
  limitFor,
  neededFor,
  overCap,
  type Simulation,
  type SimulationRequest,
  signatureRequiredDetail,
  throwShortOfFunds,
  uncappedSimulationGas,
} from './executionGas.ts'
import { isUnknownMethod } from './nodeErrors.ts'
import type { SimulatedResult } from './simulationBatcher.ts'

export type { GasCap, Simulation, SimulationRequest } from './executionGas.ts'

export async function simulateExecution(ctx: EvmContext, request: SimulationRequest): Promise<Simulation> {
  if (ctx.state.simulates !== false) {
    const once = await simulateAtRemembered(ctx, request)
    if (once === undefined) return estimateExecution(ctx, request)
    if (once !== 'again') return once
    const fast = await simulateTwice(ctx, request)
    if (fast !== undefined) return fast
  }
  return estimateExecution(ctx, request)
}

/** Most gas an execution's limit may have over the one it needs before it is simulated again for a tighter one: a quarter. */
const spareAtMost = (limit: bigint) => (limit * 5n) / 4n
const maxShapes = 1024

/**
 * One eth_simulateV1 at a limit from the gas this shape used last: the Simulation when it succeeds
 * there with the head-room it needs and not much more; 'again' when that is not known (a new
 * shape, a revert, which may be for want of gas, a limit too tight or too loose): simulate at the
 * cap. Undefined: the node lacks eth_simulateV1.
 */
async function simulateAtRemembered(ctx: EvmContext, request: SimulationRequest): Promise<Simulation | 'again' | undefined> {
  const used = request.shape === undefined ? undefined : ctx.gasByShape.get(request.shape)
  if (used === undefined) return 'again'
  const limit = limitFor((neededFor(used) * 11n) / 10n, request)
  const result = await simulateAt(ctx, request, limit)
  if (result === undefined) return undefined
  if (!result.success) return 'again'
  const needed = neededFor(result.gasUsed)
  if (request.cap !== undefined && needed > request.cap.gas) return 'again'
  const wanted = limitFor(needed, request)
  if (limit < wanted || limit > spareAtMost(wanted)) return 'again'
  remember(ctx, request, result.gasUsed)
  return { ok: true, gasLimit: limit }
}

function remember({ gasByShape }: EvmContext, { shape }: SimulationRequest, gasUsed: bigint): void {
  if (shape === undefined) return
  if (gasByShape.size >= maxShapes && !gasByShape.has(shape)) gasByShape.clear()
  gasByShape.set(shape, gasUsed)
}

/** eth_simulateV1 at the cap, then at the limit; undefined: ask eth_estimateGas instead. */
async function simulateTwice(ctx: EvmContext, request: SimulationRequest): Promise<Simulation | undefined> {
  const { cap } = request
  const first = await simulateAt(ctx, request, cap?.gas ?? uncappedSimulationGas)
  if (first === undefined) return undefined
  if (!first.success) {
    const decoded = decodeRevertData(first.returnData)
    if (!decoded) return undefined
    return decoded.status === Status.SIGNATURE_REQUIRED ? { ok: false, status: decoded.status, detail: signatureRequiredDetail } : { ok: false, ...decoded }
  }
  // A CALL forwards at most 63/64 of the gas left (EIP-150): the limit must exceed what was used.
  const needed = neededFor(first.gasUsed)
  if (cap !== undefined && needed > cap.gas) return overCap(needed, cap)
  const gasLimit = limitFor(needed, request)
  const confirmed = await simulateAt(ctx, request, gasLimit)
  if (!confirmed?.success) return undefined
  remember(ctx, request, first.gasUsed)
  return { ok: true, gasLimit }
}

type CallResult = { success: boolean; gasUsed: bigint; returnData: Hex }

/** One eth_simulateV1 of the execution at this gas limit, validated as a transaction (balance, fees); undefined when the node lacks the method. */
async function simulateAt({ pool, chain, state, simulations }: EvmContext, { from, data, fees }: SimulationRequest, gas: bigint): Promise<CallResult | undefined> {
  const call = { from, to: chain.executor, data, gas: numberToHex(gas), maxFeePerGas: numberToHex(fees.maxFeePerGas), maxPriorityFeePerGas: numberToHex(fees.maxPriorityFeePerGas) }
  let result: SimulatedResult
  try {
    // Folded with concurrent executes' simulations into one eth_simulateV1 (simulationBatcher.ts).
    result = await simulations.simulate(call)
  } catch (err) {
    if (isUnknownMethod(err)) {
      state.simulates = false
      return undefined
    }
    // The node refuses the transaction itself: most often, the relayer cannot pay for this limit.
    if (isShortOfFunds(err)) await throwShortOfFunds({ pool }, from, gas, fees, err)
    throw classifyRpcError(err, chain.chainId, 'simulation of execute')
  }
  if (!result?.status || !result.gasUsed) return undefined
  state.simulates = true
  return { success: BigInt(result.status) === 1n, gasUsed: BigInt(result.gasUsed), returnData: result.returnData ?? '0x' }
}
