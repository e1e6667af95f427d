// The fees a transaction sent now would carry: one estimate shared by concurrent sends, reused for
// a second, never a failed one.
import type { Fees } from './relayedTransaction.ts'
import type { RelayerContext } from './relayerContext.ts'

const feeReuseMs = 1000

export function currentFees(ctx: RelayerContext): Promise<Fees> {
  if (!ctx.fees || Date.now() - ctx.fees.at > feeReuseMs) {
    const value = ctx.client.estimateFeesPerGas()
    const entry = { value, at: Date.now() }
    ctx.fees = entry
    value.catch(() => {
      if (ctx.fees === entry) ctx.fees = undefined // never reuse a failure
    })
  }
  return ctx.fees.value
}
