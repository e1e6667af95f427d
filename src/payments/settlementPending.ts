// x402's `settlement_pending` (x402 PR #3083): a settlement broadcast whose confirmation did not
// come in time. Not a failure: the payment stays reserved, naming its transaction, and the
// resolver finishes it (settled: the intent is then sent; failed or expired: released).
import type { PaymentRecord } from '../ports/paymentLedger.ts'

export const settlementPendingReason = 'settlement_pending'

export function isSettlementPending(payment: Pick<PaymentRecord, 'state' | 'reason'>): boolean {
  return payment.state === 'reserved' && (payment.reason?.startsWith(settlementPendingReason) ?? false)
}
