// A payment family's own rules, as x402 keeps its mechanisms (`mechanisms/{evm,svm}/exact`): each
// family is a room of payments/mechanisms/ registered once (mechanisms.ts), and the shared payment
// flow (admit, settle, finish, recovery) asks the mechanism of a payment's network instead of
// testing the network's name.
import type { x402Facilitator } from '@x402/core/facilitator'
import type { FacilitatorClient, x402ResourceServer } from '@x402/core/server'
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { Logger } from 'pino'
import type { Hex, LocalAccount } from 'viem'
import type { PaymentFamilySettings } from '../../config/paymentsConfig.ts'
import type { PrecedingTransaction } from '../../ports/chainAdapter.ts'
import type { LentEndpoints } from '../../ports/chainEndpoints.ts'
import type { AuthorizationKey, PaymentLedger, PaymentRecord } from '../../ports/paymentLedger.ts'
import type { FacilitatorSigners } from '../../signers/createFacilitatorSigners.ts'
import type { Ed25519Signer } from '../../signers/ed25519Signer.ts'
import type { OnFacilitatorSpend, SentSettlement, SettlementSpendWatch } from '../createSettlementSpendWatch.ts'
import type { SvmFeeLimits } from '../svmFeeLimits.ts'

export type PaymentKey =
  | {
      ok: true
      key: AuthorizationKey
      /** Who pays (the EIP-3009 `from`, or the SPL transfer's authority). */
      payer: string
      /**
       * Until when (unix seconds) the payment could still be settled by whoever holds it: the
       * authorization's validBefore; on Solana, a bound past any blockhash's life from now (the
       * transaction's blockhash, valid at verification, expires sooner, whatever the offer's
       * maxTimeoutSeconds, up to a day, says).
       */
      validBefore: bigint
      /** The refusal reason x402 gives a payment already used. */
      alreadyUsed: string
      /** Solana: the payer's partially signed transaction (base64). */
      transaction?: string | undefined
      /**
       * What to keep with the reservation to find the settlement after a crash, when its id is
       * known before it is sent (Solana: the blockhash the transaction lives by; once no longer
       * valid, it can never land). Read back by the mechanism's own recovery.
       */
      settlementPayload?: string | undefined
    }
  | { ok: false; reason: string }

export type ResolvedPayment = {
  payment: PaymentRecord
  outcome: 'settled' | 'released'
  transaction: string | undefined
  reason: 'used' | 'cancelled' | 'unused' | 'expired' | 'failed'
}

/**
 * What recovery (resolveUnresolvedPayments.ts) lends a mechanism for one pass: the ledger, and the
 * reads the mechanism built of its own networks (`createChainReads`), handed back as they were.
 */
export type RecoveryContext<Reads = unknown> = {
  ledger: PaymentLedger
  log: Logger
  when: 'start-up' | 'periodic'
  /** The reads of the mechanism's networks, as its `createChainReads` built them. */
  reads: Reads
  /**
   * The in-process facilitator's account, when it settles here (undefined with a remote one): at
   * start-up, whether a settlement it sent before the crash may still be in the node.
   */
  settler?: string | undefined
  /** A value read once per pass and shared by its payments (one network's head, so all are judged at one block). */
  once<T>(key: string, read: () => T): T
  /**
   * Says that the payment stays reserved, and why: at `level` the first time this process says it
   * of the payment, at debug at the passes after (a reservation can wait minutes for its blockhash,
   * or hours for its authorization's validBefore, and the recovery passes every few seconds).
   */
  leftReserved(level: 'info' | 'warn', fields: Record<string, unknown>, message: string): void
}

/** What the in-process facilitator (createFacilitatorClient.ts) lends a family to register its scheme with. */
export type FacilitatorSchemeParameters = {
  facilitator: x402Facilitator
  /** The family's networks the facilitator settles on, each with the endpoints its chain's runtime lends. */
  endpoints: [Network, LentEndpoints][]
  keys: Pick<FacilitatorSigners, 'evm' | 'solana'>
  /** Every settlement the family's signer sends goes through `watch.sent`, for its spend. */
  watch: SettlementSpendWatch
  /** The keys wrapped so that one that cannot sign is told from a refused payment (and the EVM transactions signed are noted). */
  watchAccount<A extends LocalAccount>(account: A): A
  watchEd25519(signer: Ed25519Signer): Ed25519Signer
  log: Logger
  rpcTimeoutMs: number
  settlementTimeoutMs: number
  svmFeeLimits: SvmFeeLimits
  evmMaxSettlementGas: bigint | undefined
}

/** A family's scheme registered with the in-process facilitator: what the shared settle asks of it. */
export type FacilitatorScheme = {
  /** The fee a sent settlement paid and whether it failed; undefined while it has not landed. */
  spendOf(network: string, sent: SentSettlement): Promise<{ fee: bigint; failed: boolean } | undefined>
  /** Why a payment is refused before x402's scheme is asked at all (a fee above the ceilings), or undefined. */
  feeProblemOf?(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): { reason: string; message: string } | undefined
  /**
   * What became of a settlement whose transactions the facilitator signed, when x402 answered it
   * failed (the chain is asked); undefined when the family cannot tell on this network.
   */
  signedOutcomeOf?(
    network: string,
  ):
    | ((args: {
        payload: PaymentPayload
        requirements: PaymentRequirements
        signed: readonly Hex[]
        answer: SettleResponse
      }) => Promise<SettleResponse>)
    | undefined
  /** The facilitator's account on the family's networks (EVM). */
  address?: `0x${string}`
  /** The id a payment's settlement transaction will have, known before it is sent (Solana). */
  settlementIdOf?(transaction: string): Promise<string | undefined>
}

/** What a family builds its chain reads from: the endpoints its networks' runtimes lend (ports/chainEndpoints.ts). */
export type ChainReadsParameters = { endpointsOf(network: string): LentEndpoints | undefined; rpcTimeoutMs: number }

export type SettlementRecheckOutcome = 'final' | 'reincluded' | 'resent' | 'reorged'

/** What startPayments lends a family's re-check of its settlements after a reorg. */
export type SettlementRecheckParameters<Reads = unknown> = {
  /** The facilitator that settles (traced): what a settlement is sent again through without the in-process key. */
  facilitator: FacilitatorClient
  ledger: PaymentLedger
  /** The reads of the family's networks, as its `createChainReads` built them. */
  reads: Reads
  /** The in-process facilitator's account (undefined with a remote facilitator). */
  settler: string | undefined
  signers: FacilitatorSigners | undefined
  /** The endpoints a network's runtime lends; undefined where no runtime chain here serves it. */
  endpointsOf(network: string): LentEndpoints | undefined
  /** How long the receipt of a settlement sent again is awaited. */
  timeoutMs: number
  onSpend?: OnFacilitatorSpend | undefined
  logger: Logger
}

/** A family's re-check of its settlements until they are final (EVM: a reorg may orphan the block that mined one). */
export type SettlementRecheck = {
  /** Wraps the facilitator so that what each settlement sent, and the block that mined it, is kept. */
  keep<F extends FacilitatorClient>(facilitator: F): F
  /** One pass over the settlements not final yet. */
  recheck(pass: {
    confirmations: number
    isInFlight?: ((paymentId: number) => boolean) | undefined
    onOutcome?: ((payment: PaymentRecord, outcome: SettlementRecheckOutcome) => void) | undefined
  }): Promise<void>
}

/**
 * A payment family as paymentFamilies.ts lists it: what it reads of the x402 settings itself (a
 * price on its networks, the facilitator's key for them: read with the configuration, handed to
 * loadConfig by src/runtimes.ts), and its mechanism, loaded with x402's packages only when the
 * gateway takes payments (mechanisms.ts).
 */
export type PaymentFamily = PaymentFamilySettings & { loadMechanism(): Promise<PaymentMechanism> }

/**
 * A family's mechanism. `Reads` is its own reads of its networks (`createChainReads`): opaque to the
 * shared code, which hands them back to the same mechanism's `resolve` and re-check. The methods'
 * parameters are bivariant, so the registry lists every family as `PaymentMechanism` (unknown reads).
 */
export type PaymentMechanism<Reads = unknown> = {
  /** The CAIP-2 namespace of the networks this family pays on (`eip155`, `solana`). */
  namespace: string
  /** What identifies one payment on its network, so that the ledger lets it pay for one request only. */
  keyOf(payload: PaymentPayload, requirements: PaymentRequirements, now: () => bigint): PaymentKey
  /** The payer a payment's inner payload names, before the facilitator verified it (undefined: not this family's, or unreadable). */
  claimedPayer(inner: unknown): string | undefined
  /** Whether a reserved payment can still be decided by the chain (a crash left it): something on chain will tell. */
  mayStillLand(payment: PaymentRecord): boolean
  /** Registers the family's x402 scheme with the resource server, for the networks priced on it. */
  registerServerScheme(server: x402ResourceServer, networks: Network[]): void
  /**
   * The transaction its settlement will be, for the route's simulation to run after it (EVM: the
   * EIP-3009 call from the facilitator's account); undefined when it cannot be known beforehand.
   */
  settlementCallOf?(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    facilitatorAddress: `0x${string}` | undefined,
  ): PrecedingTransaction | undefined
  /**
   * Whether one payer's settlements under way at once are capped (Solana: x402 sends them
   * unsimulated, so concurrent ones against the same balance fail at the fee payer's cost).
   */
  capsSettlementsInFlight: boolean
  /** Recovery of a reserved payment no request holds: settled or released as its chain says, or left (undefined). */
  resolve(payment: PaymentRecord, context: RecoveryContext<Reads>): Promise<ResolvedPayment | undefined>
  /** Registers the family's scheme with the in-process facilitator (nothing registered without its key). */
  createFacilitatorScheme(parameters: FacilitatorSchemeParameters): FacilitatorScheme
  /** Builds the reads of its networks over the endpoints their runtimes lend (its own shape, opaque to the shared code). */
  createChainReads(parameters: ChainReadsParameters): Reads
  /** Its settlements' re-check after a reorg, when its chains can orphan a settled block (EVM). */
  createSettlementRecheck?(parameters: SettlementRecheckParameters<Reads>): SettlementRecheck
}
