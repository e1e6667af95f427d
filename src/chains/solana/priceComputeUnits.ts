// The compute budget the relayer sets: the limit from the simulation with a margin, the price
// from the market within the ceiling, raised when an expired attempt is signed again.
import { maxComputeUnitLimit } from './computeBudget.ts'

/** The units the simulation used, plus a tenth and 1,000 more (the target's path may vary), at most the chain's maximum. */
export function computeUnitLimitFor(unitsConsumed: bigint): number {
  const units = Number(unitsConsumed)
  return Math.min(maxComputeUnitLimit, Math.ceil(units * 1.1) + 1_000)
}

/** The market's price, at most the ceiling. */
export function computeUnitPriceFor(market: bigint, ceiling: bigint): bigint {
  return market < ceiling ? market : ceiling
}

/** The least a re-signed attempt adds to a price of 0 (micro-lamports per unit). */
const minimumRaise = 1_000n

/**
 * The price of an attempt signed again after the last one expired unmined (it did not land at its
 * price): half as much again (at least 1,000 more), or the market's if that is higher, within the ceiling.
 */
export function raisedComputeUnitPrice(previous: bigint, market: bigint, ceiling: bigint): bigint {
  const raised = previous + (previous / 2n > minimumRaise ? previous / 2n : minimumRaise)
  return computeUnitPriceFor(market > raised ? market : raised, ceiling)
}
