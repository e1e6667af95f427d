// One health probe for every runtime: how long the chain takes to name its latest block (or slot,
// or checkpoint), or what went wrong, in the shape GET /health shows.

import type { GatewayError } from '../errors/gatewayError.ts'
import type { ChainHealth } from '../ports/chainAdapter.ts'
import type { ChainType } from '../ports/chainId.ts'

export type ProbeHealthParameters = {
  chainId: string
  chainType: ChainType
  unavailableReason: string | undefined
  /** Asks the chain for its latest block, slot or checkpoint. */
  latest: () => Promise<bigint | string | undefined>
  /** Turns a failure into the runtime's error (its message never carries an RPC URL). */
  classify: (err: unknown) => GatewayError
}

export async function probeHealth({
  chainId,
  chainType,
  unavailableReason,
  latest,
  classify,
}: ProbeHealthParameters): Promise<ChainHealth> {
  const base = { chainId, chainType, available: !unavailableReason, unavailableReason }
  const started = performance.now()
  try {
    const block = await latest()
    return {
      ...base,
      reachable: true,
      blockNumber: block?.toString(),
      latencyMs: Math.round(performance.now() - started),
      error: undefined,
    }
  } catch (err) {
    const failure = classify(err)
    return {
      ...base,
      reachable: false,
      blockNumber: undefined,
      latencyMs: undefined,
      error: failure.details ? `${failure.shortMessage}: ${failure.details}` : failure.shortMessage,
    }
  }
}
