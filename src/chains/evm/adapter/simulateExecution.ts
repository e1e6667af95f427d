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
import { type Hex, numberToHex } from 'viem'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { decodeRevertData } from '../decodeExecutorRevert.ts'
import type { EvmContext } from './evmContext.ts'
import { estimateExecution, isShortOfFunds, limitFor, overCap, type Simulation, type SimulationRequest, signatureRequiredDetail, throwShortOfFunds, uncappedSimulationGas } from './executionGas.ts'
import { isUnknownMethod } from './nodeErrors.ts'

export type { GasCap, Simulation, SimulationRequest } from './executionGas.ts'

export async function simulateExecution(ctx: EvmContext, request: SimulationRequest): Promise<Simulation> {
  if (ctx.state.simulates !== false) {
    const fast = await simulateTwice(ctx, request)
    if (fast !== undefined) return fast
  }
  return estimateExecution(ctx, request)
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
