// The devnet's stand-in for a fee market: LiteSVM has none, so the fees of recent slots are what a
// test sets (litesvm_setPrioritizationFees), for every transaction or for those that write given
// accounts, and getRecentPrioritizationFees answers from them in a real node's shape: one entry per
// recent slot, oldest first, each the highest fee set for any of the asked accounts (or for all).
// A test can also make the devnet congested: a transaction bidding less than a minimum price is
// accepted and never lands (litesvm_setMinimumPriorityFee), as when no leader takes it.
import { getCompiledTransactionMessageDecoder, type Transaction } from '@solana/kit'

/** A node's prioritization-fee cache holds up to 150 blocks. */
const cachedSlots = 150

export type FeeMarket = {
  /**
   * Sets the fees (micro-lamports per compute unit) of the latest slots, oldest first (the first
   * one also for every slot before: one value sets them all); without accounts, of every
   * transaction. An empty list clears them.
   */
  set(fees: readonly bigint[], accounts?: readonly string[]): void
  /** Below this price (micro-lamports per unit) a transaction never lands; 0: every one lands. */
  setMinimum(microLamports: bigint): void
  /** Whether a transaction bids enough to land. */
  lands(transaction: Transaction): boolean
  /** getRecentPrioritizationFees at `slot` (the latest slot). */
  recent(addresses: readonly string[], slot: bigint): { slot: bigint; prioritizationFee: bigint }[]
}

export function createFeeMarket(): FeeMarket {
  const everyone = '*'
  const series = new Map<string, readonly bigint[]>()
  let minimum = 0n
  return {
    setMinimum(microLamports) {
      minimum = microLamports
    },
    lands(transaction) {
      return minimum === 0n || priceOf(transaction) >= minimum
    },
    set(fees, accounts) {
      for (const key of accounts && accounts.length > 0 ? accounts : [everyone]) {
        if (fees.length === 0) series.delete(key)
        else series.set(key, fees.slice(-cachedSlots))
      }
    },
    recent(addresses, slot) {
      const asked = [everyone, ...addresses].map((key) => series.get(key) ?? [])
      // One entry per value set (an unset market: the cache's length), never before the first slot.
      const count = Math.max(1, Math.min(Number(slot), Math.max(...asked.map((s) => s.length)) || cachedSlots))
      return Array.from({ length: count }, (_, i) => {
        const back = count - 1 - i
        const fee = asked.reduce((max, s) => {
          const value = s.length === 0 ? 0n : s[Math.max(0, s.length - 1 - back)]!
          return value > max ? value : max
        }, 0n)
        return { slot: slot - BigInt(back), prioritizationFee: fee }
      })
    },
  }
}

/** The compute-unit price a transaction sets (SetComputeUnitPrice), 0 without one. */
function priceOf(transaction: Transaction): bigint {
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
  if (!('instructions' in message)) return 0n
  for (const ix of message.instructions) {
    const data = ix.data
    if (
      message.staticAccounts[ix.programAddressIndex] !== 'ComputeBudget111111111111111111111111111111' ||
      !data ||
      data[0] !== 3 ||
      data.length !== 9
    )
      continue
    return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true)
  }
  return 0n
}
