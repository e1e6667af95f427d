// The execution simulated as the chain will run it (docs/api-contract.md §14): from the relayer key
// that will send, with its fees, an explicit gas limit, at the pending state. A revert, or more gas
// than the cap, sends nothing; a relayer that cannot pay for the cap at these fees is the gateway's
// problem (502), not the intent's.
//
// Two node executions where the node offers eth_simulateV1 (anvil, geth, reth): one at the cap,
// which gives the gas used, then one at the limit that will be sent (the gas used with EIP-150's
// 63/64 and the head-room), which confirms it. eth_estimateGas (a search of ~15–20 executions) is
// the fallback: for a node without eth_simulateV1, a revert without data to decode, or a limit the
// confirmation refuses.
import { type Address, type Hex, numberToHex } from 'viem'
import { RelayerError } from '../../../errors/relayerError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { decodeExecutorRevert, decodeRevertData } from '../decodeExecutorRevert.ts'
import type { Fees } from '../relayer/createRelayer.ts'
import type { EvmContext } from './evmContext.ts'
import { isGasAboveAllowance, isUnknownMethod } from './nodeErrors.ts'

/** The most gas an execution may use, and who set it: the chain's MAX_GAS_PER_EXECUTION, or what a paid execute's price covers. */
export type GasCap = { gas: bigint; by: 'chain' | 'price' }

/** `gasLimit`: the limit to send with, confirmed (or estimated) to run the execution. */
export type Simulation = { ok: true; gasLimit: bigint } | { ok: false; status: number; detail: string | undefined }

export type SimulationRequest = {
  from: Address
  data: Hex
  fees: Fees
  cap: GasCap | undefined
  /** The least limit to send with (an earlier attempt ran out of the gas it was given: twice its limit). */
  atLeast?: bigint | undefined
}

/** Head-room over what the execution needs: state can move between the simulation and inclusion. */
const gasMarginPercent = 120n
/** The limit a simulation runs at when no cap bounds it: what a block of most chains can hold. */
const uncappedSimulationGas = 30_000_000n
const signatureRequiredDetail = "the executor runs a relayed intent only with its sender's signature: sign the typed data in `signing` and send it as `signature`"

export async function simulateExecution(ctx: EvmContext, request: SimulationRequest): Promise<Simulation> {
  if (ctx.state.simulates !== false) {
    const fast = await simulateTwice(ctx, request)
    if (fast !== undefined) return fast
  }
  return estimateExecution(ctx, request)
}

/** The limit to send for an execution that needs `needed` gas: with head-room and the earlier attempt's floor, never past the cap. */
function limitFor(needed: bigint, { cap, atLeast }: SimulationRequest): bigint {
  let limit = (needed * gasMarginPercent) / 100n
  if (atLeast !== undefined && limit < atLeast) limit = atLeast
  return cap !== undefined && limit > cap.gas ? cap.gas : limit
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
  const needed = (first.gasUsed * 64n + 62n) / 63n
  if (cap !== undefined && needed > cap.gas) return overCap(needed, cap)
  const gasLimit = limitFor(needed, request)
  const confirmed = await simulateAt(ctx, request, gasLimit)
  return confirmed?.success ? { ok: true, gasLimit } : undefined
}

type CallResult = { success: boolean; gasUsed: bigint; returnData: Hex }

/** One eth_simulateV1 of the execution at this gas limit, validated as a transaction (balance, fees); undefined when the node lacks the method. */
async function simulateAt({ pool, chain, state }: EvmContext, { from, data, fees }: SimulationRequest, gas: bigint): Promise<CallResult | undefined> {
  const call = { from, to: chain.executor, data, gas: numberToHex(gas), maxFeePerGas: numberToHex(fees.maxFeePerGas), maxPriorityFeePerGas: numberToHex(fees.maxPriorityFeePerGas) }
  let blocks: { calls?: { status?: Hex; gasUsed?: Hex; returnData?: Hex }[] }[]
  try {
    blocks = (await pool.request({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{ calls: [call] }], validation: true }, 'pending'] })) as typeof blocks
  } catch (err) {
    if (isUnknownMethod(err)) {
      state.simulates = false
      return undefined
    }
    // The node refuses the transaction itself: most often, the relayer cannot pay for this limit.
    if (isShortOfFunds(err)) await throwShortOfFunds({ pool }, from, gas, fees, err)
    throw classifyRpcError(err, chain.chainId, 'simulation of execute')
  }
  const result = blocks?.[0]?.calls?.[0]
  if (!result?.status || !result.gasUsed) return undefined
  state.simulates = true
  return { success: BigInt(result.status) === 1n, gasUsed: BigInt(result.gasUsed), returnData: result.returnData ?? '0x' }
}

/** eth_estimateGas of the execution as `from` will send it: the cap as an explicit gas limit, its fees, the pending state. */
async function estimateExecution({ client, chain, pool }: EvmContext, request: SimulationRequest): Promise<Simulation> {
  const { from, data, fees, cap } = request
  try {
    const gas = await client.estimateGas({
      account: from,
      to: chain.executor,
      data,
      ...(cap !== undefined ? { gas: cap.gas } : {}),
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      blockTag: 'pending',
    } as never)
    if (cap !== undefined && gas > cap.gas) return overCap(gas, cap)
    return { ok: true, gasLimit: limitFor(gas, request) }
  } catch (err) {
    const decoded = decodeExecutorRevert(err)
    if (decoded?.status === Status.SIGNATURE_REQUIRED) return { ok: false, status: decoded.status, detail: signatureRequiredDetail }
    if (decoded) return { ok: false, ...decoded }
    if (isGasAboveAllowance(err)) {
      // A node bounds the search by what the sender can pay at these fees: a short relayer looks
      // like an intent that needs too much gas.
      await throwShortOfFunds({ pool }, from, cap?.gas ?? 1_000_000n, fees, err, true)
      if (cap !== undefined) return overCap(undefined, cap)
    }
    throw classifyRpcError(err, chain.chainId, 'simulation of execute')
  }
}

/** Throws RelayerError when the relayer holds less than `gas` costs at these fees (`onlyIfShort`: else returns). */
async function throwShortOfFunds({ pool }: Pick<EvmContext, 'pool'>, from: Address, gas: bigint, fees: Fees, cause: unknown, onlyIfShort = false): Promise<void> {
  const balance = await pool.request({ method: 'eth_getBalance', params: [from, 'pending'] }).then(
    (b) => BigInt(b as Hex),
    () => undefined,
  )
  const needed = gas * fees.maxFeePerGas
  if (onlyIfShort && !(balance !== undefined && balance < needed)) return
  throw new RelayerError('The relayer wallet cannot pay for gas', {
    cause,
    details: `relayer ${from} is out of funds: it holds ${balance ?? 'an unknown amount of'} wei, less than the ${needed} wei the gas limit of ${gas} costs at ${fees.maxFeePerGas} wei per gas`,
  })
}

function isShortOfFunds(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const { message, details } = e as { message?: unknown; details?: unknown }
    if (/insufficient funds/i.test(`${String(message ?? '')} ${String(details ?? '')}`)) return true
  }
  return false
}

const overCap = (gas: bigint | undefined, cap: GasCap): Simulation => ({
  ok: false,
  status: Status.UPPER_LIMIT,
  detail: `the execution needs ${gas === undefined ? 'more gas than' : `an estimated ${gas} gas, above`} ${cap.by === 'price' ? `the ${cap.gas} gas its price covers (maxGas in X402_PRICES)` : `this gateway's limit of ${cap.gas} per execution (MAX_GAS_PER_EXECUTION)`}`,
})
