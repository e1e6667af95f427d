// One call as eth_simulateV1 takes it, and the node's result for it: what the simulation batcher
// asks (simulationBatcher.ts) and what it builds bundles of (simulatedBundles.ts).
import type { Address, Hex } from 'viem'

/** One transaction as eth_simulateV1 takes it: the sender, an explicit gas limit, its fees. */
export type SimulatedCall = {
  from: Address
  to: Address
  data: Hex
  gas: Hex
  maxFeePerGas: Hex
  maxPriorityFeePerGas: Hex
  /** The code `to` runs with in the simulated block (account mode: 0xef0100 ‖ delegate, the authorization's effect); not sent as a call field. */
  toCode?: Hex | undefined
}
/** The node's result for one call (undefined: it gave none). */
export type SimulatedResult = { status?: Hex; gasUsed?: Hex; returnData?: Hex; logs?: SimulatedLog[] } | undefined
export type SimulatedLog = { address: string; topics: Hex[]; data: Hex }
