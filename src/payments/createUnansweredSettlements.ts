// The EVM settlements whose outcome the chain left open (`settlement_pending` from
// outcomeOfSignedSettlement: signed, maybe sent, not mined), by authorization. x402's resource
// server settles a pending payment once more at once, and a client may send the same payment again:
// that settle must read the chain about the transactions already signed, not sign a second one for
// the same authorization (whose estimate, against a pending block, fails and would read as "nothing
// sent"). Kept for an hour at most, and at most 10,000 (the resolver finishes them meanwhile).
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { Hex } from 'viem'
import { settlementPendingReason } from './settlementPending.ts'

export function createUnansweredSettlements({
  keepMs = 3_600_000,
  max = 10_000,
  now = Date.now,
}: {
  keepMs?: number
  max?: number
  now?: () => number
} = {}) {
  const open = new Map<string, { signed: readonly Hex[]; at: number }>()
  const keyOf = (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const authorization = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown } } | undefined)
      ?.authorization
    if (typeof authorization?.from !== 'string' || typeof authorization.nonce !== 'string') return undefined
    return `${requirements.network}|${requirements.asset.toLowerCase()}|${authorization.from.toLowerCase()}|${authorization.nonce.toLowerCase()}`
  }
  return {
    /** The transactions signed for this authorization whose outcome is still open; undefined when none. */
    of(payload: PaymentPayload, requirements: PaymentRequirements): readonly Hex[] | undefined {
      const key = keyOf(payload, requirements)
      const entry = key ? open.get(key) : undefined
      if (!entry || now() - entry.at > keepMs) return undefined
      return entry.signed
    },
    /** Keeps the signed transactions while the outcome is pending; forgets them once it is known. */
    note(
      payload: PaymentPayload,
      requirements: PaymentRequirements,
      outcome: SettleResponse,
      signed: readonly Hex[],
    ): void {
      const key = keyOf(payload, requirements)
      if (!key) return
      if (outcome.success || outcome.errorReason !== settlementPendingReason) {
        open.delete(key)
        return
      }
      for (const [k, v] of open) if (open.size >= max || now() - v.at > keepMs) open.delete(k)
      open.set(key, { signed, at: open.get(key)?.at ?? now() })
    },
  }
}
