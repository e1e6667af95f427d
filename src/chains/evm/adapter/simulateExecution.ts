// The execution simulated as the chain will run it (docs/api-contract.md §14): from the relayer key
// that will send, with its fees, an explicit gas limit, at the pending state. A revert, or more gas
// than the cap, sends nothing; a relayer that cannot pay for the cap at these fees is the gateway's
// problem (502), not the intent's.
//
// Where the node offers eth_simulateV1 (anvil, geth, reth), usually one node execution: at a limit
// from the gas the shape's recent executions used (the last 256), which fits all of them: the most
// any of them used, with 10% more for a rise when the least is near enough (a shape whose gas is
// mostly one value and now and then ~18% more: a nonce that opens a fresh storage word, a first
// transfer to a new holder). No execution of a shape is sent with less than what the most of those
// needs, up to half again its own limit: of several executions of one shape in flight, the one the
// chain mines first pays for the storage they meet empty, whichever the simulation ran first, and
// the chain keeps no order between the gateway's keys (a fleet's first wave on a fresh counter: two
// empty slots, 34,200 gas over the one simulated after the other, past the head-room); no single
// execution that used far more raises everyone's limits past that. When it succeeds there and that
// limit has the head-room (64/63 for EIP-150, then 20%) and no more than a quarter over it, the
// limit is confirmed as it will be sent. When it succeeds outside
// that band, the gas it used gives the limit, and one more execution at that limit confirms it: a
// second simulation, which replays the gateway's transactions sent meanwhile (simulationBatcher.ts),
// so the window keeps it rare. Otherwise (a new shape, a revert, which may be for want of gas) two:
// one at the cap, which gives the gas used (or the revert), then one at the limit that will be
// sent. Simulations of concurrent executes go to the node together (simulationBatcher.ts). An
// execution is sent in the order of the simulation whose gas gave its limit (its turn,
// executionOrder.ts): a confirmation runs after the rest of its batch and keeps no place of its
// own, so no other call's result depends on it.
// eth_estimateGas (a search of ~15–20 executions) is the fallback: for a node without
// eth_simulateV1, a revert without data to decode, or a limit the confirmation refuses.
//
// A paid execute's settlement (the facilitator's transferWithAuthorization, exactly as it will be
// sent) runs first in the same simulated block: an intent that only reverts once the payment is
// settled (it spends the same EIP-3009 nonce, or the balance the settlement takes) is refused
// before anything is charged. eth_estimateGas cannot do that: where it is the fallback, its pass
// does not count for a paid execute.
import { type Hex, numberToHex } from 'viem'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { decodeRevertData } from '../decodeExecutorRevert.ts'
import type { EvmContext, ShapeGas } from './evmContext.ts'
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
import type { SimulationTurn } from './executionOrder.ts'
import { isBelowGasFloor, isUnknownMethod } from './nodeErrors.ts'
import type { SimulatedResults } from './simulationBatcher.ts'

export type { GasCap, Simulation, SimulationRequest } from './executionGas.ts'

export async function simulateExecution(ctx: EvmContext, request: SimulationRequest): Promise<Simulation> {
  if (ctx.state.simulates !== false) {
    const once = await simulateAtRemembered(ctx, request)
    if (once === undefined) return estimate(ctx, request)
    if (once !== 'again') return once
    const fast = await simulateTwice(ctx, request)
    if (fast !== undefined) return fast
    // simulateAt learnt meanwhile whether the node has eth_simulateV1.
    if (lacksSimulate(ctx) === false) return estimateAfterSettlement(ctx, request)
  }
  // A node without eth_simulateV1 cannot run the settlement first: the execution is judged alone
  // (afterPreceding unset: the caller simulates it again once the settlement is mined).
  return estimate(ctx, request)
}

/**
 * eth_estimateGas under the shape's floor, as a simulation's gas is: its estimate (the least limit
 * it runs at, a little over the gas it uses) joins the shape's window, and the limit sent covers
 * the most of that window. Its pending state shows the gateway's transactions that the chain may
 * mine after this one as well.
 */
const estimate = (ctx: EvmContext, request: SimulationRequest) =>
  estimateExecution(ctx, request, (gas) => {
    remember(ctx, request, gas)
    return wantedFor(ctx, gas, request)
  })

const lacksSimulate = (ctx: EvmContext): boolean => ctx.state.simulates === false

/** Gas for a settlement's sender in the simulation: transferWithAuthorization uses well under it. */
const settlementSimulationGas = 300_000n

/**
 * eth_estimateGas cannot run the settlement first: it answers a refusal as it is, but a pass does
 * not count where the same execution after the settlement reverted (without data to decode).
 */
async function estimateAfterSettlement(ctx: EvmContext, request: SimulationRequest): Promise<Simulation> {
  const estimated = await estimate(ctx, request)
  if (!estimated.ok || request.precededBy === undefined) return estimated
  return {
    ok: false,
    status: Status.TRANSFER_FAILED,
    detail:
      'the execution reverts when it runs after its payment is settled (simulated together): nothing was charged or sent',
  }
}

const settlementFails: Simulation = {
  ok: false,
  status: Status.FUNDS_REQUESTED,
  detail:
    "the payment's settlement fails at the pending state (simulated before settling): nothing was charged or sent",
}

/** Most gas an execution's limit may have over the one it needs before it is simulated again for a tighter one: a quarter. */
const spareAtMost = (limit: bigint) => (limit * 5n) / 4n
const maxShapes = 1024

/**
 * One eth_simulateV1 at a limit from the gas this shape's executions use: the Simulation when it
 * succeeds there with the head-room it needs and not much more, or, when it succeeds outside that
 * band, once it is confirmed at the limit its own gas gives; 'again' when that is not known (a new
 * shape, a revert, which may be for want of gas): simulate at the cap. Undefined: the node lacks
 * eth_simulateV1.
 */
async function simulateAtRemembered(
  ctx: EvmContext,
  request: SimulationRequest,
): Promise<Simulation | 'again' | undefined> {
  const known = request.shape === undefined ? undefined : ctx.gasByShape.get(request.shape)
  if (known === undefined) return 'again'
  const limit = rememberedLimit(known, request)
  const result = await simulateAt(ctx, request, limit)
  if (result === undefined) return undefined
  const sentAt = (gasLimit: bigint, { turn }: CallResult): Simulation => ({
    ok: true,
    gasLimit,
    afterPreceding: request.precededBy !== undefined,
    turn,
  })
  if (result.settlementFailed) return dropped(result, settlementFails)
  if (!result.success) return dropped(result, 'again')
  const needed = neededFor(result.gasUsed)
  if (request.cap !== undefined && needed > request.cap.gas) return dropped(result, 'again')
  // Known before the calls decided after it (its batch-mates simulated after it met what it wrote).
  remember(ctx, request, result.gasUsed)
  const wanted = wantedFor(ctx, needed, request)
  if (limit >= wanted && limit <= spareAtMost(wanted)) return sentAt(limit, result)
  // Simulated in a bundle (its turn names the run): it goes in that bundle with the calls simulated
  // with it, so it is not simulated again alone (that would not be the bundle, and its bundle would
  // close without it). It ran to the end: sent at the limit it ran with, or at the one it wants
  // where that is more. A bundle's calls differ in gas more than a shape's transactions (the first
  // meets the storage cold, the rest warm: docs/performance.md), so the band above rarely holds there.
  if (result.turn.chunk) return sentAt(limit >= wanted ? limit : wanted, result)
  // It ran to the end at another limit: the gas it used gives the limit, confirmed as it will be
  // sent. It ran to the end either way, so what the calls after it saw holds: it keeps its place.
  const confirmed = await confirm(ctx, request, wanted)
  if (confirmed?.settlementFailed) return dropped(result, settlementFails)
  if (!confirmed?.success) return dropped(result, 'again')
  return sentAt(wanted, result)
}

/**
 * The execution again at the limit it will be sent with (last in its batch, its own turn given up
 * at once): it is sent in the place of the simulation that gave that limit.
 */
async function confirm(ctx: EvmContext, request: SimulationRequest, gas: bigint): Promise<CallResult | undefined> {
  const confirmed = await simulateAt(ctx, request, gas, { confirming: true })
  confirmed?.turn.drop()
  return confirmed
}

/** A simulation whose result is not sent on: its turn is given up (the calls after it in its batch are simulated again). */
function dropped<T>(result: CallResult | undefined, answer?: T): T {
  result?.turn.drop()
  return answer as T
}

/**
 * The limit a shape's next execution is simulated at: at least what the most gas its recent
 * executions used needs (`wantedFor`). When the least is near enough (the limit the most needs is
 * at most a quarter over the least's), the most's with 10% more for a rise, but never over a
 * quarter above the least's; else the most's, but never over half again the last one's
 * (raisedAtMost).
 */
function rememberedLimit(known: ShapeGas, request: SimulationRequest): bigint {
  const high = limitFor(neededFor(BigInt(known.most)), request)
  const low = limitFor(neededFor(BigInt(known.least)), request)
  if (high > spareAtMost(low)) {
    // Spread wide: the most's, but not past half again the last one's (a rise for good is met at
    // once; one execution that used far more is simulated over only by the one after it).
    const last = known.recent[(known.next + known.recent.length - 1) % known.recent.length]!
    const lastRaised = raisedAtMost(limitFor(neededFor(BigInt(last)), request))
    return lesser(high, lastRaised)
  }
  const raised = (high * 11n) / 10n
  return raised < spareAtMost(low) ? raised : spareAtMost(low)
}

/**
 * The limit an execution of a shape that needs `needed` is sent with: its own (limitFor), and no
 * less than what the most gas the shape's recent executions used needs, with the same head-room,
 * up to half as much again as its own (raisedAtMost).
 */
function wantedFor({ gasByShape }: EvmContext, needed: bigint, request: SimulationRequest): bigint {
  const own = limitFor(needed, request)
  const known = request.shape === undefined ? undefined : gasByShape.get(request.shape)
  if (known === undefined) return own
  const most = limitFor(neededFor(BigInt(known.most)), request)
  if (most <= own) return own
  return lesser(most, raisedAtMost(own))
}

/**
 * The most a shape's window raises a limit over the execution's own: half as much again. That
 * covers the storage a batch-mate met empty (17,100 gas a slot: three slots over any execution of
 * 30,000 gas or more, with limitFor's head-room). Past it, one execution of the shape that used far
 * more (a loop its input drives; a stranger's call of a shared target and policy) would set the
 * limits of the next 256 executions of everyone's: the balance the relayer must hold for each at its
 * fees, and the room a block must have left for it (a limit over the chain's cap per transaction is
 * refused). So it raises them half again at most; an execution that does need more runs out of gas
 * in its simulation and is simulated again at the cap, as a new shape is.
 */
const raisedAtMost = (limit: bigint) => (limit * 3n) / 2n
/** The smaller of two limits. */
const lesser = (a: bigint, b: bigint) => (a < b ? a : b)

/** How many of a shape's executions its remembered gas spans. */
const shapeWindow = 256

/** A shape's execution used `gasUsed`: it joins the shape's window (a new shape starts one). */
function remember({ gasByShape }: EvmContext, { shape }: SimulationRequest, gasUsed: bigint): void {
  if (shape === undefined) return
  const used = Number(gasUsed)
  let known = gasByShape.get(shape)
  if (!known) {
    if (gasByShape.size >= maxShapes) gasByShape.clear()
    known = { recent: [], next: 0, least: used, most: used }
    gasByShape.set(shape, known)
  }
  if (known.recent.length < shapeWindow) known.recent.push(used)
  else known.recent[known.next] = used
  known.next = (known.next + 1) % shapeWindow
  known.least = Math.min(...known.recent)
  known.most = Math.max(...known.recent)
}

/** eth_simulateV1 at the cap, then at the limit; undefined: ask eth_estimateGas instead. */
async function simulateTwice(ctx: EvmContext, request: SimulationRequest): Promise<Simulation | undefined> {
  const { cap } = request
  const first = await simulateAt(ctx, request, cap?.gas ?? uncappedSimulationGas)
  if (first === undefined) return undefined
  if (first.settlementFailed) return dropped(first, settlementFails)
  if (!first.success) {
    first.turn.drop()
    const decoded = decodeRevertData(first.returnData)
    if (!decoded) return undefined
    return decoded.status === Status.SIGNATURE_REQUIRED
      ? { ok: false, status: decoded.status, detail: signatureRequiredDetail }
      : { ok: false, ...decoded }
  }
  // A CALL forwards at most 63/64 of the gas left (EIP-150): the limit must exceed what was used.
  const needed = neededFor(first.gasUsed)
  if (cap !== undefined && needed > cap.gas) return dropped(first, overCap(needed, cap))
  remember(ctx, request, first.gasUsed)
  const gasLimit = wantedFor(ctx, needed, request)
  // It ran to the end at the cap: sent at the limit confirmed, in the place of the run at the cap.
  const confirmed = await confirm(ctx, request, gasLimit)
  if (confirmed?.settlementFailed) return dropped(first, settlementFails)
  if (!confirmed?.success) return dropped(first, undefined)
  return { ok: true, gasLimit, afterPreceding: request.precededBy !== undefined, turn: first.turn }
}

/**
 * `settlementFailed`: the preceding call (the settlement) failed, so the execution's result says
 * nothing; `turn`: its place among what was simulated before it (dropped unless it is sent on).
 */
type CallResult = {
  success: boolean
  gasUsed: bigint
  returnData: Hex
  settlementFailed?: boolean
  turn: SimulationTurn
}

/**
 * One eth_simulateV1 of the execution at this gas limit, validated as a transaction (balance,
 * fees), after the call that runs before it when there is one (the payment's settlement, with the
 * same fees); undefined when the node lacks the method.
 */
async function simulateAt(
  { pool, chain, state, simulations }: EvmContext,
  { from, to, toCode, data, fees, precededBy }: SimulationRequest,
  gas: bigint,
  options: { confirming?: boolean } = {},
): Promise<CallResult | undefined> {
  const feeFields = {
    maxFeePerGas: numberToHex(fees.maxFeePerGas),
    maxPriorityFeePerGas: numberToHex(fees.maxPriorityFeePerGas),
  }
  const call = {
    from,
    to: to ?? chain.executor,
    data,
    gas: numberToHex(gas),
    ...feeFields,
    ...(toCode ? { toCode } : {}),
  }
  const before = precededBy && { ...precededBy, gas: numberToHex(settlementSimulationGas), ...feeFields }
  let results: SimulatedResults
  try {
    // Folded with concurrent executes' simulations into one eth_simulateV1 (simulationBatcher.ts).
    results = await simulations.simulate(call, before, options)
  } catch (err) {
    if (isUnknownMethod(err)) {
      state.simulates = false
      return undefined
    }
    // Prague's calldata floor (EIP-7623) above this limit: eth_estimateGas answers how much it needs.
    if (isBelowGasFloor(err)) return undefined
    // The node refuses the transaction itself: most often, the relayer cannot pay for this limit.
    if (isShortOfFunds(err)) await throwShortOfFunds({ pool }, from, gas, fees, err)
    throw classifyRpcError(err, chain.chainId, 'simulation of execute')
  }
  const { result, turn } = results
  if (!result?.status || !result.gasUsed) {
    turn.drop()
    return undefined
  }
  state.simulates = true
  const settlementFailed =
    before !== undefined && (!results.precededBy?.status || BigInt(results.precededBy.status) !== 1n)
  return {
    success: BigInt(result.status) === 1n,
    gasUsed: BigInt(result.gasUsed),
    returnData: result.returnData ?? '0x',
    ...(settlementFailed ? { settlementFailed } : {}),
    turn,
  }
}
