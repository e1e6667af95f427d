// x402 payments for the gateway's priced routes, framework-free: what a request must pay, and
// its payment's steps, which the route calls in one straight sequence (http/routes/intents/
// intentRoute.ts): admit (verify, reserve: one authorization, one request) → the route's own work
// (validate, simulate) → settle, before anything is broadcast → finish (charged, consumed or
// released as the answer says). A refused request is never charged; a settled payment whose
// request was not delivered stays a credit for the same intent.
import { type FacilitatorClient, x402ResourceServer } from '@x402/core/server'
import {
  type Network,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
} from '@x402/core/types'
import type { Logger } from 'pino'
import { type Hex, keccak256, stringToHex } from 'viem'
import type { PaymentsConfig, PriceConfig, PricedRoute } from '../config/paymentsConfig.ts'
import { GatewayError } from '../errors/gatewayError.ts'
import type { PaymentLedger, PaymentRecord, PendingRequest, StoredAnswer } from '../ports/paymentLedger.ts'
import { claimedPayer, type PaymentHeader, readPaymentHeader } from './claimedPayer.ts'
import { type GatewayFacilitator, withoutUndefined } from './createFacilitatorClient.ts'
import { FacilitatorUnavailableError } from './facilitatorUnavailableError.ts'
import { freeTicket } from './freeTicket.ts'
import { mechanismOf, paymentMechanisms } from './mechanisms/mechanisms.ts'
import { paymentKeyOf } from './paymentKeyOf.ts'
import type { PaidAnswer, PaymentTicket, Settlement } from './paymentTicket.ts'
import { isSettlementPending, settlementPendingReason } from './settlementPending.ts'

export const paymentIdentifierExtension = 'payment-identifier'

export type PaymentRequest = {
  route: PricedRoute
  chainId: string
  intentHash: Hex
  /** The absolute URL of the resource paid for (PaymentRequired.resource.url). */
  resourceUrl: string
  description?: string
  /** The PAYMENT-SIGNATURE header, read once (readPaymentHeader), when the client sent one. */
  payment: PaymentHeader | undefined
  /** The request carries a valid API key: priced only with PRICE_API_KEY_CLIENTS. */
  apiKeyClient?: boolean
  /** Extensions the offer declares besides payment-identifier (the route's `bazaar` discovery). */
  extensions?: Record<string, unknown> | undefined
  /**
   * The request as the resolver can send it again: kept when its settlement is pending
   * (`settlement_pending`), so that the intent is sent once the settlement confirms.
   */
  replay?: PendingRequest | undefined
}

export type { Finished, PaidAnswer, PaymentTicket, Settlement } from './paymentTicket.ts'

/** What one route costs on one chain: the `accepts` a 402 would offer. */
export type Offer = { route: PricedRoute; chainId: string; accepts: PaymentRequirements[] }

/** Whether a request may go on, and what pays for it; or what answers it instead, nothing run or charged. */
export type Admission =
  | { kind: 'admitted'; ticket: PaymentTicket }
  /** 402: unpaid, or the payment did not verify (`paymentRequired.error` says why). */
  | { kind: 'payment-required'; paymentRequired: PaymentRequired }
  /** A `payment-identifier` retry of a finished request: its first answer. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** 409: the `payment-identifier` id is in use by a request in flight, or by another payment. */
  | { kind: 'conflict'; detail: string }

export type Payments = {
  /** The price of a route on a chain, or undefined when it is free. */
  priceFor(route: PricedRoute, chainId: string): PriceConfig | undefined
  /** The payment's first step (see the module comment); a free route is admitted with a free ticket. */
  admit(request: PaymentRequest): Promise<Admission>
  /** Keeps the answer a payment paid for, for `payment-identifier` retries. */
  remember(payment: PaymentRecord, answer: StoredAnswer): Promise<void>
  /** Whether a request of this process holds the reservation now (the resolver leaves those alone). */
  isInFlight(paymentId: number): boolean
  /** Every priced route on every chain with the `accepts` it offers (the bazaar's catalogue). */
  offers(): Promise<Offer[]>
  /** A PAYMENT-SIGNATURE header decoded, once for its request: what `admit` and `claimedPayer` take (claimedPayer.ts). */
  readPaymentHeader(raw: string): PaymentHeader
  /** The payer a PAYMENT-SIGNATURE names, before the facilitator verified it (claimedPayer.ts): used only to refuse. */
  claimedPayer(header: PaymentHeader): string | undefined
  /** Stops the periodic resolver, when one was started. */
  close(): Promise<void>
}

export function createPayments({
  config,
  facilitator,
  ledger,
  logger,
}: {
  config: PaymentsConfig
  facilitator: FacilitatorClient & Pick<GatewayFacilitator, 'settlementIdOf' | 'address'>
  ledger: PaymentLedger
  logger: Logger
}): Payments {
  const log = logger.child({ module: 'payments' })
  const networks = [
    ...new Set(Object.values(config.prices).flatMap((routes) => Object.values(routes).map((p) => p.network))),
  ] as Network[]
  const server = new x402ResourceServer(facilitator)
  for (const mechanism of paymentMechanisms) {
    const priced = networks.filter((n) => mechanismOf(n) === mechanism)
    if (priced.length > 0) mechanism.registerServerScheme(server, priced)
  }

  // Reservations held by this process's requests now.
  const inFlight = new Set<number>()
  let initialized: Promise<void> | undefined
  const requirementsCache = new Map<string, Promise<PaymentRequirements[]>>()
  // Builds the `accepts` of a price once (it needs the facilitator's supported kinds); a failure is not cached.
  function requirementsFor(route: PricedRoute, chainId: string, price: PriceConfig): Promise<PaymentRequirements[]> {
    const cacheKey = `${route} ${chainId}`
    let cached = requirementsCache.get(cacheKey)
    if (!cached) {
      cached = (async () => {
        // Asked first through the guarded client: x402's initialize() would only log an unreachable facilitator.
        initialized ??= facilitator.getSupported().then(() => server.initialize())
        try {
          await initialized
          return await server.buildPaymentRequirements({
            scheme: 'exact',
            network: price.network,
            payTo: price.payTo,
            // `as never`: x402's Price (AssetAmount) declares `extra` without `| undefined`, which
            // exactOptionalPropertyTypes refuses for the configuration's optional field.
            price: price.price as never,
            maxTimeoutSeconds: price.maxTimeoutSeconds,
          })
        } catch (err) {
          initialized = undefined
          requirementsCache.delete(cacheKey)
          if (err instanceof FacilitatorUnavailableError) throw err
          log.warn({ err, route, chainId }, 'x402 payment requirements could not be built')
          throw new FacilitatorUnavailableError('supported', { cause: err })
        }
      })()
      requirementsCache.set(cacheKey, cached)
    }
    return cached
  }

  function priceFor(route: PricedRoute, chainId: string) {
    return config.prices[chainId]?.[route]
  }

  const isCharged = (r: PaidAnswer) => r.charge ?? r.httpStatus < 400
  const isDelivered = (r: PaidAnswer) => r.delivered ?? (isCharged(r) && (r.httpStatus === 200 || r.httpStatus === 201))
  /** Uses the payment up if its work is delivered, now or, when the answer says it will tell, once it is. */
  async function useUpIfDelivered(answer: PaidAnswer, id: number) {
    if (isDelivered(answer)) return ledger.markConsumed(id)
    void answer.deliveredLater?.then(
      async (delivered) => {
        if (!delivered) return
        await ledger
          .markConsumed(id)
          .catch((err: unknown) =>
            log.warn({ err, paymentId: id }, 'x402 credit not used up at its execution; the recovery pass will'),
          )
      },
      () => undefined,
    )
  }

  async function admit(request: PaymentRequest): Promise<Admission> {
    const price = priceFor(request.route, request.chainId)
    if (!price || (request.apiKeyClient && !config.priceApiKeyClients)) return { kind: 'admitted', ticket: freeTicket }
    const binding = { route: request.route, chainId: request.chainId, intentHash: request.intentHash }

    // A settlement for this very intent is pending: the request is answered as pending again (never
    // 402, which would make the client pay twice); the resolver sends the intent once it confirms.
    // So is a payment for it that is still reserved and may yet land: one a request is settling now
    // (here or on another instance), or one a crash left that the resolver has not decided. Asked to
    // pay meanwhile, the client would pay a second time, and both would land (issue 43: a Solana
    // payer charged 105 times for 104 intents). Not a Solana reservation whose settlement id is
    // unknown (a remote facilitator's): nothing would ever decide it.
    const forIntent = (await ledger.forIntent(request.chainId, request.intentHash)).filter(
      (p) => p.route === request.route,
    )
    const pendingPayment =
      forIntent.find((p) => isSettlementPending(p)) ?? forIntent.find((p) => p.state === 'reserved' && mayStillLand(p))
    if (pendingPayment) {
      const pending = pendingOf(pendingPayment)
      const ticket: PaymentTicket = {
        payment: 'pending',
        payer: pendingPayment.payer,
        price,
        settle: async () => pending,
        finish: async () => ({
          kind: 'served',
          paymentResponse: pending.response,
          payment: pendingPayment,
          charged: 'pending',
        }),
        fail: async () => {},
      }
      return { kind: 'admitted', ticket }
    }

    // An earlier payment for this very intent was settled but its request not delivered: it pays again.
    const credit = await ledger.creditFor(binding)
    if (credit) {
      const response: SettleResponse = {
        success: true,
        transaction: credit.transaction ?? '',
        network: credit.network as Network,
        payer: credit.payer,
        amount: credit.amount,
      }
      const ticket: PaymentTicket = {
        payment: 'credit',
        payer: credit.payer,
        price,
        settle: async () => ({ ok: true, response }),
        finish: async (answer) => {
          await useUpIfDelivered(answer, credit.id)
          return { kind: 'served', paymentResponse: response, payment: credit, charged: 'credit' }
        },
        fail: async () => {},
      }
      return { kind: 'admitted', ticket }
    }

    const requirements = await requirementsFor(request.route, request.chainId, price)
    const resource = {
      url: request.resourceUrl,
      description: request.description ?? `${request.route} on ${request.chainId}`,
      mimeType: 'application/json',
    }
    const extensions = {
      ...request.extensions,
      [paymentIdentifierExtension]: { info: { required: false }, schema: paymentIdentifierSchema },
    }
    const paymentRequired = async (error: string): Promise<Admission & { kind: 'payment-required' }> => ({
      kind: 'payment-required',
      paymentRequired: await server.createPaymentRequiredResponse(requirements, resource, error, extensions),
    })

    if (!request.payment?.raw) return paymentRequired('Payment required')
    const payload = request.payment.payload
    if (payload === undefined)
      return paymentRequired('invalid_payment_payload: PAYMENT-SIGNATURE is not a base64 JSON PaymentPayload')
    const matched = payload.x402Version === 2 ? server.findMatchingRequirements(requirements, payload) : undefined
    if (!matched) return paymentRequired('No matching payment requirements')
    // What identifies this payment on its network: (token, payer, EIP-3009 nonce), or (mint, payer, Solana message hash).
    const paid = paymentKeyOf(payload, matched)
    if (!paid.ok) return paymentRequired(paid.reason)
    const { key, payer, validBefore, alreadyUsed } = paid
    const paymentId = paymentIdOf(payload)
    const payloadHash = keccak256(stringToHex(JSON.stringify(payload)))

    // Cheap refusals before the facilitator is asked: an id already answered, an authorization already used.
    if (paymentId !== undefined) {
      const holder = await ledger.findByPaymentId(paymentId)
      if (holder && holder.state !== 'released') return holderOutcome(holder, holder.payloadHash === payloadHash)
    }
    const known = await ledger.findByAuthorization(key)
    if (known && known.state !== 'released') return paymentRequired(alreadyUsed)

    const verified = await server.verifyPayment(payload, matched)
    if (!verified.isValid) return paymentRequired(verified.invalidReason ?? 'invalid_payment')

    // Solana: the settlement's id is known before it is sent (in-process facilitator); kept with the reservation, it finds the settlement after a crash.
    const settlementId = paid.transaction ? await facilitator.settlementIdOf?.(paid.transaction) : undefined
    const reservation = await ledger.reserve({
      ...key,
      ...binding,
      amount: matched.amount,
      payTo: matched.payTo,
      paymentId,
      payloadHash,
      validBefore,
      // Solana: the blockhash its settlement lives by, kept with the reservation, before anything is
      // sent. After a crash the resolver releases the payment as soon as that blockhash has expired
      // and the settlement is not seen, instead of waiting out the reservation's bound.
      ...(settlementId ? { transaction: settlementId, settlementPayload: paid.settlementPayload } : {}),
    })
    if (reservation.kind === 'authorization-used') return paymentRequired(alreadyUsed)
    if (reservation.kind === 'payment-id-taken') return holderOutcome(reservation.payment, reservation.samePayload)
    const payment = reservation.payment

    // This request holds the reservation until it finishes (the resolver leaves it alone meanwhile).
    inFlight.add(payment.id)
    let settlement: Promise<Settlement> | undefined
    const settle = () =>
      (settlement ??= (async (): Promise<Settlement> => {
        let response: SettleResponse
        try {
          response = await server.settlePayment(payload, matched)
        } catch (err) {
          // A facilitator that could not answer leaves the reservation for recovery: it may have sent the transfer.
          // The facilitator's own key could not sign: nothing was sent, so the authorization is free again (a retry may use it).
          if (err instanceof GatewayError && err.code === 'FACILITATOR_SIGNER_UNAVAILABLE')
            await ledger.markReleased(payment.id, 'the facilitator could not sign: nothing was sent')
          if (!(err instanceof SettleError)) throw err
          response = withoutUndefined({
            success: false,
            errorReason: err.errorReason,
            errorMessage: err.errorMessage,
            transaction: err.transaction,
            network: err.network,
          }) as SettleResponse
        }
        if (response.success) {
          await ledger.markSettled(payment.id, response.transaction)
          return { ok: true, response }
        }
        if (response.errorReason === settlementPendingReason && response.transaction) {
          // Broadcast, not confirmed in time: not a failure. The payment stays reserved, naming its transaction.
          await ledger.markSettlementPending(
            payment.id,
            response.transaction,
            `${settlementPendingReason}: the settlement ${response.transaction} was broadcast and not confirmed in time; the intent is sent once it is`,
            request.replay,
          )
          log.info(
            { paymentId: payment.id, transaction: response.transaction },
            'x402 settlement pending: the intent waits for its confirmation',
          )
          return pendingOf({ ...payment, transaction: response.transaction, payer: response.payer ?? payment.payer })
        }
        const reason = response.errorReason ?? 'settlement_failed'
        await ledger.markReleased(payment.id, `settlement failed: ${reason}`)
        log.info({ paymentId: payment.id, reason }, 'x402 settlement failed: nothing sent')
        return { ok: false, reason, message: response.errorMessage }
      })())

    const ticket: PaymentTicket = {
      payment: 'paid',
      payer,
      price,
      settlement: mechanismOf(matched.network)?.settlementCallOf?.(payload, matched, facilitator.address),
      settle,
      async finish(answer) {
        try {
          if (!settlement) {
            if (!isCharged(answer)) {
              await ledger.markReleased(payment.id, `not charged: answered ${answer.httpStatus}`)
              return { kind: 'served', paymentResponse: undefined, payment: undefined, charged: 'released' }
            }
            // Routes with nothing to broadcast are settled after they succeed, as @x402/express does.
            settle()
          }
          const settled = await settlement!
          if (!settled.ok && settled.pending)
            return { kind: 'served', paymentResponse: settled.response, payment, charged: 'pending' }
          if (!settled.ok) return paymentRequired(settled.reason)
          await useUpIfDelivered(answer, payment.id)
          return { kind: 'served', paymentResponse: settled.response, payment, charged: 'settled' }
        } finally {
          inFlight.delete(payment.id)
        }
      },
      async fail() {
        try {
          // Settled and then failed: the payment stays a credit for this intent.
          if (!settlement) await ledger.markReleased(payment.id, 'the request failed before settlement')
        } finally {
          inFlight.delete(payment.id)
        }
      },
    }
    return { kind: 'admitted', ticket }
  }

  /** Whether a reserved payment can still be decided by the chain, as its family's mechanism says (an EVM authorization; a Solana settlement whose id is known). */
  function mayStillLand(payment: PaymentRecord): boolean {
    return mechanismOf(payment.network)?.mayStillLand(payment) ?? true
  }

  function pendingOf(payment: PaymentRecord): Settlement & { pending: true } {
    const message = isSettlementPending(payment)
      ? `the payment's settlement ${payment.transaction} was broadcast and is not confirmed yet: the intent is sent once it is (nothing to pay again); poll the Location`
      : `a payment for this intent (${payment.transaction ?? `reserved ${payment.createdAt.toISOString()}`}) is being settled: the intent is sent once it is settled, or a new payment is asked for if it fails (nothing to pay now); poll the Location`
    return {
      ok: false,
      pending: true,
      reason: settlementPendingReason,
      message,
      response: {
        success: false,
        errorReason: settlementPendingReason,
        errorMessage: message,
        transaction: payment.transaction ?? '',
        network: payment.network as Network,
        payer: payment.payer,
        amount: payment.amount,
      },
    }
  }

  function holderOutcome(holder: PaymentRecord, samePayload: boolean): Admission {
    if (!samePayload)
      return { kind: 'conflict', detail: `payment-identifier ${holder.paymentId} was used with another payment` }
    if (holder.answer) return { kind: 'replay', answer: holder.answer }
    return {
      kind: 'conflict',
      detail: `payment-identifier ${holder.paymentId}: the request it paid for is still in flight`,
    }
  }

  async function offers(): Promise<Offer[]> {
    const listed: Offer[] = []
    for (const [chainId, routes] of Object.entries(config.prices)) {
      for (const [route, price] of Object.entries(routes) as [PricedRoute, PriceConfig][]) {
        listed.push({ route, chainId, accepts: await requirementsFor(route, chainId, price) })
      }
    }
    return listed
  }

  return {
    priceFor,
    admit,
    offers,
    remember: (payment, answer) => ledger.saveAnswer(payment.id, answer),
    isInFlight: (id) => inFlight.has(id),
    readPaymentHeader,
    claimedPayer,
    close: async () => {},
  }
}

function paymentIdOf(payload: PaymentPayload): string | undefined {
  const id = (payload.extensions?.[paymentIdentifierExtension] as { info?: { id?: unknown } } | undefined)?.info?.id
  return typeof id === 'string' && /^[a-zA-Z0-9_-]{16,128}$/.test(id) ? id : undefined
}

const paymentIdentifierSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    required: { type: 'boolean' },
    id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[a-zA-Z0-9_-]+$' },
  },
  required: ['required'],
}
