// A request's payment once admitted, as the HTTP layer and the payment flow share it: the ticket,
// its settlement, the route's answer and what becomes of the payment. Types only, in their own
// file: the HTTP layer (and payments/freeTicket.ts) use them without loading the x402 packages
// that payments/createPayments.ts imports.
import type { PaymentRequired, SettleResponse } from '@x402/core/types'
import type { PriceConfig } from '../config/paymentsConfig.ts'
import type { PrecedingTransaction } from '../ports/chainAdapter.ts'
import type { PaymentRecord } from '../ports/paymentLedger.ts'
import type { settlementPendingReason } from './settlementPending.ts'

export type Settlement =
  | { ok: true; response: SettleResponse | undefined }
  | { ok: false; reason: string; message: string | undefined; pending?: undefined }
  /**
   * x402's `settlement_pending`: the settlement was broadcast and its confirmation did not come in
   * time. Nothing may be broadcast yet; the request is answered 202 (never 402: the client would
   * pay again), and the resolver sends it once the settlement confirms.
   */
  | { ok: false; pending: true; reason: typeof settlementPendingReason; message: string; response: SettleResponse }

/** A request's payment once admitted: what pays for it, and the steps the route takes with it. */
export type PaymentTicket = {
  /** `none`: free; `credit`: an earlier settled payment for this intent pays; `paid`: this request's payment; `pending`: a settlement for this intent is not confirmed yet. */
  payment: 'none' | 'credit' | 'paid' | 'pending'
  /** Who pays (verified by the facilitator, or the credit's payer): whose standing and budget the request counts against. */
  payer?: string | undefined
  /** The price paid (undefined when free): what it covers (execute's `maxGas`). */
  price?: PriceConfig | undefined
  /**
   * The transaction `settle()` will have mined, where the payment's runtime can describe it
   * (EVM: the facilitator's `transferWithAuthorization` call, `{ from, to, data }`): a route
   * simulates its own work after it (ExecutionOptions.precededBy) before settling.
   */
  settlement?: PrecedingTransaction | undefined
  /**
   * Settles the payment: a route with a broadcast step calls it after simulating and before
   * broadcasting, and broadcasts only when it answers `ok`. Idempotent. Free or a credit: `ok` at
   * once; a pending settlement: pending.
   */
  settle(): Promise<Settlement>
  /**
   * The route's answer is known: the payment is charged, used up or released as it says (a route
   * with nothing to broadcast, whose answer is charged, is settled here, as @x402/express does).
   * Called once, unless the route threw: then `fail`.
   */
  finish(answer: PaidAnswer): Promise<Finished>
  /** The route threw: an unsettled payment is released; a settled one stays a credit for this intent. */
  fail(): Promise<void>
}

/** What the route answered, as its payment sees it. */
export type PaidAnswer = {
  httpStatus: number
  /** Whether this answer is charged when the route did not settle itself. Default: httpStatus < 400. */
  charge?: boolean
  /** Whether the paid work was done (the credit is used up). Default: charged and 200 or 201. */
  delivered?: boolean
  /**
   * Not delivered yet, and this process will learn whether it is (an execution answered 202 before it
   * was final): true then uses the payment up at once; false leaves it to the recovery pass.
   */
  deliveredLater?: Promise<boolean> | undefined
}

/** A payment once its request is answered: served (with the settlement to send as PAYMENT-RESPONSE), or 402 after all (the settlement failed). */
export type Finished =
  | {
      kind: 'served'
      paymentResponse: SettleResponse | undefined
      payment: PaymentRecord | undefined
      /**
       * free: unpriced (or an API-key client); credit: an earlier settlement paid; settled: charged
       * now; released: verified, not charged; pending: settlement broadcast, not confirmed yet.
       */
      charged: 'free' | 'credit' | 'settled' | 'released' | 'pending'
    }
  | { kind: 'payment-required'; paymentRequired: PaymentRequired }
