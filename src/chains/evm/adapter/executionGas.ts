// What simulating an execution decides and how: the gas cap, the limit sent (head-room, an
// earlier attempt's floor), the refusals (over the cap, a relayer short of funds), and
// eth_estimateGas, the fallback of simulateExecution.ts.
import type { Address, Hex } from 'viem'
import { RelayerError } from '../../../errors/relayerError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { decodeExecutorRevert } from '../decodeExecutorRevert.ts'
import type { Fees } from '../relayer/createRelayer.ts'
import type { EvmContext } from './evmContext.ts'
import type { SimulationTurn } from './executionOrder.ts'
import { isGasAboveAllowance } from './nodeErrors.ts'

/** The most gas an execution may use, and who set it: the chain's MAX_GAS_PER_EXECUTION, or what a paid execute's price covers. */
export type GasCap = { gas: bigint; by: 'chain' | 'price' }

/**
 * `gasLimit`: the limit to send with, confirmed (or estimated) to run the execution; `afterPreceding`:
 * it was simulated after the request's `precededBy` (eth_estimateGas cannot be).
 */
export type Simulation =
  | {
      ok: true
      gasLimit: bigint
      afterPreceding?: boolean
      /** Its place among what was simulated before it (executionOrder.ts); none from eth_estimateGas. */
      turn?: SimulationTurn | undefined
    }
  | { ok: false; status: number; detail: string | undefined }

export type SimulationRequest = {
  from: Address
  /** Where the transaction goes: the executor unless told (account mode: the sender's own address). */
  to?: Address | undefined
  /** The code `to` is simulated with (account mode, not delegated yet: what its authorization will give it). */
  toCode?: Hex | undefined
  data: Hex
  fees: Fees
  cap: GasCap | undefined
  /** The least limit to send with (an earlier attempt ran out of the gas it was given: twice its limit). */
  atLeast?: bigint | undefined
  /** What executions alike in gas share (target, call, policy, size): the gas the last one used is the next one's first guess. */
  shape?: string | undefined
  /** The call the chain runs just before the execution (a paid execute's settlement): simulated with it, first. */
  precededBy?: PrecedingCall | undefined
}

/** A call that runs before the execution, as the payment's settlement will send it. */
export type PrecedingCall = { from: Address; to: Address; data: Hex }

/** Head-room over what the execution needs: state can move between the simulation and inclusion. */
const gasMarginPercent = 120n
/**
 * The least head-room, whatever the execution's size: what a storage write to an empty slot costs
 * over one to a set slot (22,100 gas against 5,000: EIP-2200, EIP-2929), with room for the refunds
 * an execution's reported gas is net of. The state an execution meets on chain can differ from the
 * simulated one by such a write: the ledger keeps 128 nonces to a storage word, so of two intents
 * of one sender in one word, the one mined first pays for the empty word, and another relayer's
 * transaction that the node's pending block ran first may be mined after (a fleet, several keys).
 * 20% of a ~95,000-gas execution (19,000) leaves almost nothing over that write for the refunds.
 */
export const gasMarginAtLeast = 25_000n
/** The limit a simulation runs at when no cap bounds it: what a block of most chains can hold. */
export const uncappedSimulationGas = 30_000_000n
export const signatureRequiredDetail =
  "the executor runs a relayed intent only with its sender's signature: sign the typed data in `signing` and send it as `signature`"

/** The gas a call that used `gasUsed` needs as its limit: a CALL forwards at most 63/64 of the gas left (EIP-150). */
export const neededFor = (gasUsed: bigint): bigint => (gasUsed * 64n + 62n) / 63n

/** The limit to send for an execution that needs `needed` gas: with head-room and the earlier attempt's floor, never past the cap. */
export function limitFor(needed: bigint, { cap, atLeast }: SimulationRequest): bigint {
  const share = (needed * gasMarginPercent) / 100n
  let limit = share > needed + gasMarginAtLeast ? share : needed + gasMarginAtLeast
  if (atLeast !== undefined && limit < atLeast) limit = atLeast
  return cap !== undefined && limit > cap.gas ? cap.gas : limit
}

/**
 * eth_estimateGas of the execution as `from` will send it: the cap as an explicit gas limit, its
 * fees, the pending state. `wanted` turns the estimate (the least limit it runs at) into the limit
 * sent: limitFor unless told.
 */
export async function estimateExecution(
  { client, chain, pool }: EvmContext,
  request: SimulationRequest,
  wanted: (estimate: bigint) => bigint = (estimate) => limitFor(estimate, request),
): Promise<Simulation> {
  const { from, data, fees, cap, to = chain.executor, toCode } = request
  try {
    const gas = await client.estimateGas({
      account: from,
      to,
      ...(toCode ? { stateOverride: [{ address: to, code: toCode }] } : {}),
      data,
      ...(cap !== undefined ? { gas: cap.gas } : {}),
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      blockTag: 'pending',
    })
    if (cap !== undefined && gas > cap.gas) return overCap(gas, cap)
    return { ok: true, gasLimit: wanted(gas) }
  } catch (err) {
    const decoded = decodeExecutorRevert(err)
    if (decoded?.status === Status.SIGNATURE_REQUIRED)
      return { ok: false, status: decoded.status, detail: signatureRequiredDetail }
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
export async function throwShortOfFunds(
  { pool }: Pick<EvmContext, 'pool'>,
  from: Address,
  gas: bigint,
  fees: Fees,
  cause: unknown,
  onlyIfShort = false,
): Promise<void> {
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

export function isShortOfFunds(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const { message, details } = e as { message?: unknown; details?: unknown }
    if (/insufficient funds/i.test(`${String(message ?? '')} ${String(details ?? '')}`)) return true
  }
  return false
}

export const overCap = (gas: bigint | undefined, cap: GasCap): Simulation => ({
  ok: false,
  status: Status.UPPER_LIMIT,
  detail: `the execution needs ${gas === undefined ? 'more gas than' : `an estimated ${gas} gas, above`} ${cap.by === 'price' ? `the ${cap.gas} gas its price covers (maxGas in X402_PRICES)` : `this gateway's limit of ${cap.gas} per execution (MAX_GAS_PER_EXECUTION)`}`,
})
