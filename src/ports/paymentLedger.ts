// The payment ledger's operations, whatever stores them (SQLite beside the journal today; a
// PostgreSQL backend satisfies the same type). One EIP-3009 authorization (or one Solana payment
// transaction), and one `payment-identifier` id, pays for exactly one request, bound to the
// intent it paid for.
import type { Hex } from 'viem'

/**
 * `reserved`: claimed by a request, not settled yet. `settled`: the token moved (a credit for its
 * intent until a delivered execution consumes it). `consumed`: paid for a delivered request.
 * `released`: never settled, nothing charged. `reorged`: settled (EVM), then its block was
 * orphaned and the settlement could not be sent again (the authorization expired, was cancelled,
 * or the payer's balance is gone): nothing charged on the chain as it is, nothing more asked of the
 * payer, and no credit (what it paid for is never run again on it).
 */
export type PaymentState = 'reserved' | 'settled' | 'consumed' | 'released' | 'reorged'

/** The block that mined an EVM settlement, as the node answered its receipt. */
export type SettlementBlock = { number: bigint; hash: Hex }

/** What a payment pays for: one route of one intent on one chain. */
export type PaymentBinding = { route: string; chainId: string; intentHash: Hex }

/**
 * A payment as its network identifies it: an EIP-3009 authorization by (token, payer, nonce); a
 * Solana payment by (mint, payer, keccak256 of its transaction message). EVM addresses are
 * compared case-insensitively, Solana's (base58) exactly.
 */
export type AuthorizationKey = { network: string; asset: string; payer: string; nonce: Hex }

/**
 * A request whose payment's settlement was pending (x402's `settlement_pending`): kept so that the
 * resolver sends it once the settlement confirms, even after a restart.
 */
export type PendingRequest = { method: 'POST'; url: string; headers: Record<string, string>; body: unknown }

/** The answer given to a request a payment paid for, kept so a `payment-identifier` retry gets it again. */
export type StoredAnswer = { httpStatus: number; headers: Record<string, string>; body: unknown }

export type PaymentRecord = AuthorizationKey &
  PaymentBinding & {
    id: number
    amount: string
    payTo: string
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
    /**
     * The settlement transaction, once settled (undefined when recovery found it settled but not
     * its transaction). Solana, with the in-process facilitator: known from the reservation on
     * (the id the settlement will have), so that a crash cannot hide it.
     */
    transaction: string | undefined
    /** The block that mined the settlement (EVM), once its receipt was read; undefined before, or for Solana. */
    settlementBlock: SettlementBlock | undefined
    /**
     * The settlement is at its chain's finality depth (CONFIRMATIONS) on the block recorded: no
     * longer re-checked. Payments settled before blocks were recorded count as final.
     */
    settlementFinal: boolean
    /** Why it was released, or how recovery resolved it. */
    reason: string | undefined
    answer: StoredAnswer | undefined
    /** The request to send once a pending settlement confirms; cleared when it is sent. */
    pendingRequest: PendingRequest | undefined
    createdAt: Date
    updatedAt: Date
  }

export type NewReservation = AuthorizationKey &
  PaymentBinding & {
    amount: string
    payTo: string
    paymentId: string | undefined
    payloadHash: Hex
    validBefore: bigint
    /** The settlement's transaction id when it is known before settling (Solana, in-process facilitator). */
    transaction?: string | undefined
    /** What the payment's mechanism keeps to find its settlement after a crash (opaque here; settlementPayloadOf reads it back), written with the reservation. */
    settlementPayload?: string | undefined
  }

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
  /**
   * The settlement was broadcast and its confirmation did not come in time (x402's
   * `settlement_pending`): the payment stays reserved, now naming its settlement transaction, until
   * the resolver sees that transaction confirmed (settled) or failed (released).
   */
  markSettlementPending(id: number, transaction: string, reason: string, request?: PendingRequest): Promise<void>
  /** Takes the pending request off the payment (compare-and-set: true for the one caller that took it, so one instance sends it). */
  takePendingRequest(id: number): Promise<boolean>
  /** The request the payment paid for was delivered: the credit is used up. */
  markConsumed(id: number): Promise<void>
  saveAnswer(id: number, answer: StoredAnswer): Promise<void>
  /** Reservations neither settled nor released: what a crash left, or requests in flight. */
  unresolved(): Promise<PaymentRecord[]>
  /** Settled payments not consumed yet (credits), oldest first: the resolver consumes those whose execution became final. */
  credits(): Promise<PaymentRecord[]>
  /**
   * Keeps what a settlement sent (the signed payment as the facilitator settled it, opaque JSON),
   * so that it can be sent again if the block that mined it is orphaned. The payer signed it once;
   * its nonce makes a second use impossible, so sending it again never charges twice.
   */
  keepSettlementPayload(id: number, payload: string): Promise<void>
  /** What keepSettlementPayload kept, if anything. */
  settlementPayloadOf(id: number): Promise<string | undefined>
  /**
   * Records the settlement's transaction and the block that mined it (undefined: sent, not mined
   * yet); the settlement is not final again until the re-check finds it deep enough.
   */
  recordSettlementBlock(id: number, transaction: string, block: SettlementBlock | undefined): Promise<void>
  /**
   * Settlements (settled or consumed) on the networks of a CAIP-2 namespace (`eip155`: the family
   * whose mechanism re-checks them names it) not yet at finality depth, oldest first.
   */
  unfinalSettlements(namespace: string): Promise<PaymentRecord[]>
  /** The settlement is deep enough on the block recorded: re-checked no more. */
  markSettlementFinal(id: number, reason?: string): Promise<void>
  /**
   * The settlement's block was orphaned and it cannot be sent again: settled or consumed →
   * `reorged` (compare-and-set: true when this call moved it).
   */
  markReorged(id: number, reason: string): Promise<boolean>
  /** Every payment made for an intent, oldest first (for GET /intents/{intentHash}). */
  forIntent(chainId: string, intentHash: Hex): Promise<PaymentRecord[]>
}
