// The execution simulated as the chain will run it (docs/api-contract.md §14): eth_estimateGas from
// the relayer key that will send, with its fees, the cap as an explicit gas limit, at the pending
// state. A revert, or more gas than the cap, sends nothing; a relayer that cannot pay for the cap
// at these fees is the gateway's problem (502), not the intent's.
import type { Address, Hex } from 'viem'
import { RelayerError } from '../../../errors/relayerError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { decodeExecutorRevert } from '../decodeExecutorRevert.ts'
import type { Fees } from '../relayer/createRelayer.ts'
import type { EvmContext } from './evmContext.ts'
import { isGasAboveAllowance } from './nodeErrors.ts'

/** The most gas an execution may use, and who set it: the chain's MAX_GAS_PER_EXECUTION, or what a paid execute's price covers. */
export type GasCap = { gas: bigint; by: 'chain' | 'price' }

export type Simulation = { ok: true; gas: bigint } | { ok: false; status: number; detail: string | undefined }

export async function simulateExecution({ client, chain }: EvmContext, { from, data, fees, cap }: { from: Address; data: Hex; fees: Fees; cap: GasCap | undefined }): Promise<Simulation> {
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

const overCap = (gas: bigint | undefined, cap: GasCap): Simulation => ({
  ok: false,
  status: Status.UPPER_LIMIT,
  detail: `the execution needs ${gas === undefined ? 'more gas than' : `an estimated ${gas} gas, above`} ${cap.by === 'price' ? `the ${cap.gas} gas its price covers (maxGas in X402_PRICES)` : `this gateway's limit of ${cap.gas} per execution (MAX_GAS_PER_EXECUTION)`}`,
})
