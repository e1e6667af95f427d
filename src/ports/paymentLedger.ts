// The payment ledger's operations, whatever stores them (SQLite beside the journal today; a
// PostgreSQL backend satisfies the same type). One EIP-3009 authorization, and one
// `payment-identifier` id, pays for exactly one request, bound to the intent it paid for.
import type { Address, Hex } from 'viem'

/**
 * `reserved`: claimed by a request, not settled yet. `settled`: the token moved (a credit for its
 * intent until a delivered execution consumes it). `consumed`: paid for a delivered request.
 * `released`: never settled, nothing charged.
 */
export type PaymentState = 'reserved' | 'settled' | 'consumed' | 'released'

/** What a payment pays for: one route of one intent on one chain. */
export type PaymentBinding = { route: string; chainId: string; intentHash: Hex }

/** An EIP-3009 authorization, identified as the token does: (token, payer, nonce) on a network. */
export type AuthorizationKey = { network: string; asset: Address; payer: Address; nonce: Hex }

/** The answer given to a request a payment paid for, kept so a `payment-identifier` retry gets it again. */
export type StoredAnswer = { httpStatus: number; headers: Record<string, string>; body: unknown }

export type PaymentRecord = AuthorizationKey &
  PaymentBinding & {
    id: number
    amount: string
    payTo: Address
    /** The `payment-identifier` extension's id, when the client sent one. */
    paymentId: string | undefined
    /**
     * The authorization's `validBefore` (unix seconds): until then anyone holding it may still
     * settle it, so an unused reservation is released only after it (undefined: recorded before it was kept).
     */
    validBefore: bigint | undefined
    /** keccak256 of the payment payload: a retry under the same id must send the same one. */
    payloadHash: Hex
    state: PaymentState
    /** The settlement transaction, once settled (undefined when recovery found it settled but not its transaction). */
    transaction: string | undefined
    /** Why it was released, or how recovery resolved it. */
    reason: string | undefined
    answer: StoredAnswer | undefined
    createdAt: Date
    updatedAt: Date
  }

export type NewReservation = AuthorizationKey & PaymentBinding & { amount: string; payTo: Address; paymentId: string | undefined; payloadHash: Hex; validBefore: bigint }

export type Reservation =
  | { kind: 'reserved'; payment: PaymentRecord }
  /** The authorization already paid (or is paying) for a request. */
  | { kind: 'authorization-used'; payment: PaymentRecord }
  /** The `payment-identifier` id is taken; `samePayload` tells a retry from a conflicting reuse. */
  | { kind: 'payment-id-taken'; payment: PaymentRecord; samePayload: boolean }

export type PaymentLedger = {
  /**
   * Claims the authorization (and the payment id) for one request. Atomic: of two requests
   * carrying the same authorization, however close, exactly one gets `reserved`. A released
   * authorization (never settled) can be reserved again.
   */
  reserve(reservation: NewReservation): Promise<Reservation>
  /** The payment that holds this `payment-identifier` id, if any. */
  findByPaymentId(paymentId: string): Promise<PaymentRecord | undefined>
  /** The payment that holds this authorization, if any. */
  findByAuthorization(key: AuthorizationKey): Promise<PaymentRecord | undefined>
  /** A settled payment not yet consumed for this binding: the request runs without paying again. */
  creditFor(binding: PaymentBinding): Promise<PaymentRecord | undefined>
  markSettled(id: number, transaction: string | undefined, reason?: string): Promise<void>
  markReleased(id: number, reason: string): Promise<void>
  /** The request the payment paid for was delivered: the credit is used up. */
  markConsumed(id: number): Promise<void>
  saveAnswer(id: number, answer: StoredAnswer): Promise<void>
  /** Reservations neither settled nor released: what a crash left, or requests in flight. */
  unresolved(): Promise<PaymentRecord[]>
  /** Settled payments not consumed yet (credits), oldest first: the resolver consumes those whose execution became final. */
  credits(): Promise<PaymentRecord[]>
  /** Every payment made for an intent, oldest first (for GET /intents/{intentHash}). */
  forIntent(chainId: string, intentHash: Hex): Promise<PaymentRecord[]>
}
