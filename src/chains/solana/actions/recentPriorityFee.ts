// What the market asks per compute unit for a transaction that writes these accounts: the 75th
// percentile of the smallest fees that landed in each recent slot while write-locking them
// (getRecentPrioritizationFees), so that three slots in four would have taken the bid.
import type { Address } from '@solana/kit'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

/** A node takes at most 128 addresses. */
const maxAddresses = 128

export async function recentPriorityFee(ctx: SolanaContext, writable: readonly Address[]): Promise<bigint> {
  const addresses = [...new Set(writable)].slice(0, maxAddresses)
  const recent = await callSolanaRpc(ctx, 'getRecentPrioritizationFees', 'priority fee request', (rpc, abortSignal) =>
    rpc.getRecentPrioritizationFees(addresses).send({ abortSignal }),
  )
  const fees = recent.map((r) => BigInt(r.prioritizationFee)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  if (fees.length === 0) return 0n
  return fees[Math.ceil(fees.length * 0.75) - 1]!
}
