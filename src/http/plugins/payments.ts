// The Fastify side of x402 payments (there is no @x402/fastify): a paid request as its route reads
// it, one straight sequence — admit the payment (payments/createPayments.ts: verify, reserve), do
// the route's work (which settles before it broadcasts), finish the payment as the answer says —
// and the answers a payment adds: 402 0x55 with PAYMENT-REQUIRED, a payment-identifier replay,
// 409, or the route's answer with PAYMENT-RESPONSE.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Hex } from 'viem'
import type { PricedRoute } from '../../config/paymentsConfig.ts'
import type { PaymentOutcomeLabel } from '../../metrics/createMetrics.ts'
import type { PaymentHeader } from '../../payments/claimedPayer.ts'
import type { Admission, Finished, PaidAnswer, Payments, PaymentTicket } from '../../payments/createPayments.ts'
import { freeTicket } from '../../payments/freeTicket.ts'
import { Status } from '../../status/statusCodes.ts'
import type { GatewayContext } from '../gatewayContext.ts'
import { toProblemDetails } from '../problemDetails.ts'
import { publicBaseUrl } from '../publicBaseUrl.ts'

/** What a request pays for: its route, chain and intent. */
export type Priced = { route: PricedRoute; chainId: string; intentHash: Hex }

export type PaidRequestOptions<T> = {
  /** Without payments, every request runs free. */
  payments: Payments | undefined
  /** Whether the request carries a valid API key (priced only with PRICE_API_KEY_CLIENTS). */
  apiKeyClient?: boolean | undefined
  /** Extensions every offer of the route declares (its x402 `bazaar` discovery). */
  extensions?: Record<string, unknown> | undefined
  /** The route's work: it calls `ticket.settle()` after its checks and before anything is broadcast, and broadcasts only when it is ok. */
  work(ticket: PaymentTicket): Promise<{ value: T; answer: PaidAnswer }>
  /** Told what became of each priced request's payment (metrics). */
  onPayment?: ((chainId: string, outcome: PaymentOutcomeLabel) => void) | undefined
  /** Writes the route's answer (status, headers, body) to the reply; `extra` goes into the body (a pending settlement's `payment`). */
  send(value: T, extra?: Record<string, unknown>): FastifyReply
}

const paymentHeaders = new WeakMap<FastifyRequest, PaymentHeader | undefined>()

/**
 * The request's PAYMENT-SIGNATURE, decoded by payments once for the request (the standing check
 * reads its payer before the payment is admitted, then admit verifies it); undefined when none was
 * sent, or on a gateway that takes no payments (there the header means nothing).
 */
export function paymentHeaderOf(request: FastifyRequest, payments: Payments | undefined): PaymentHeader | undefined {
  if (!payments) return undefined
  if (paymentHeaders.has(request)) return paymentHeaders.get(request)
  const raw = request.headers['payment-signature']
  const sent = Array.isArray(raw) ? raw[0] : raw
  const header = sent === undefined ? undefined : payments.readPaymentHeader(sent)
  paymentHeaders.set(request, header)
  return header
}

/** Runs a request that `priced` pays for, in the paid order, and answers it. */
export async function servePaid<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  priced: Priced,
  options: PaidRequestOptions<T>,
): Promise<FastifyReply> {
  const { payments } = options
  const note = (label: PaymentOutcomeLabel) => options.onPayment?.(priced.chainId, label)
  // 1. Admit: verify and reserve the payment, or answer without running anything.
  const admission: Admission = payments
    ? await payments.admit({
        ...priced,
        resourceUrl: absoluteUrl(request),
        payment: paymentHeaderOf(request, payments),
        apiKeyClient: options.apiKeyClient ?? false,
        extensions: options.extensions,
        // Sent again by the resolver if its settlement is pending: the same route, chain, body and Idempotency-Key.
        replay: {
          method: 'POST',
          url: request.url,
          headers: replayHeaders(request, priced.chainId),
          body: request.body,
        },
      })
    : { kind: 'admitted', ticket: freeTicket }
  if (admission.kind !== 'admitted') return sendRefusal(request, reply, priced, admission, note)
  const { ticket } = admission
  // 2. The route's work, which settles the payment before it broadcasts anything.
  let done: { value: T; answer: PaidAnswer }
  try {
    done = await options.work(ticket)
  } catch (err) {
    await ticket.fail()
    throw err
  }
  // 3. Finish: charge, use up or release the payment as the answer says.
  const finished = await ticket.finish(done.answer)
  if (finished.kind === 'payment-required') return sendRefusal(request, reply, priced, finished, note)
  return sendServed(reply, finished, done, options, note)
}

async function sendServed<T>(
  reply: FastifyReply,
  finished: Finished & { kind: 'served' },
  done: { value: T; answer: PaidAnswer },
  options: PaidRequestOptions<T>,
  note: (label: PaymentOutcomeLabel) => void,
) {
  const { paymentResponse, payment, charged } = finished
  if (charged === 'pending') {
    // x402 settlement_pending: 202 with Location (the route's 0xF3), never 402; the body says which settlement it waits for.
    const settlement = paymentResponse!
    reply.header('payment-response', encodePaymentResponseHeader(settlement))
    return options.send(done.value, {
      payment: {
        status: settlement.errorReason,
        transaction: settlement.transaction,
        network: settlement.network,
        payer: settlement.payer,
        detail: settlement.errorMessage,
      },
    })
  }
  if (charged !== 'free') note(charged)
  if (paymentResponse) reply.header('payment-response', encodePaymentResponseHeader(paymentResponse))
  const sent = options.send(done.value)
  if (payment?.paymentId && paymentResponse) {
    await options.payments?.remember(payment, {
      httpStatus: done.answer.httpStatus,
      headers: { 'payment-response': encodePaymentResponseHeader(paymentResponse) },
      body: done.value,
    })
  }
  return sent
}

/** The answers of a payment that lets nothing run: 402, a payment-identifier replay, 409. */
function sendRefusal(
  request: FastifyRequest,
  reply: FastifyReply,
  priced: Priced,
  refusal: Exclude<Admission, { kind: 'admitted' }>,
  note: (label: PaymentOutcomeLabel) => void,
) {
  switch (refusal.kind) {
    case 'replay':
      note('replayed')
      return reply.code(refusal.answer.httpStatus).headers(refusal.answer.headers).send(refusal.answer.body)
    case 'conflict':
      note('conflict')
      return problem(
        request,
        reply,
        priced,
        409,
        Status.IN_FLIGHT,
        'The payment identifier is already in use',
        refusal.detail,
        {},
      )
    case 'payment-required': {
      const { paymentRequired } = refusal
      const refused = paymentRequired.error && paymentRequired.error !== 'Payment required'
      note(refused ? 'refused' : 'required')
      const detail = refused
        ? `the payment was refused: ${paymentRequired.error}`
        : 'pay with x402: repeat the request with a PAYMENT-SIGNATURE header for one of paymentRequired.accepts'
      const headers = {
        'payment-required': encodePaymentRequiredHeader(paymentRequired),
        'x-payment-required': 'true',
        'cache-control': 'no-store',
      }
      return problem(request, reply, priced, 402, Status.FUNDS_REQUESTED, 'Payment required', detail, headers, {
        paymentRequired,
      })
    }
  }
}

function problem(
  request: FastifyRequest,
  reply: FastifyReply,
  priced: Priced,
  httpStatus: number,
  status: number,
  title: string,
  detail: string,
  headers: Record<string, string>,
  extra: Record<string, unknown> = {},
) {
  const context: GatewayContext = request.gateway ?? {
    chainId: priced.chainId,
    chainType: '',
    intentHash: priced.intentHash,
    status: undefined,
  }
  context.status = status
  context.intentHash ??= priced.intentHash
  const body = { ...toProblemDetails({ httpStatus, status, title, detail, context }), ...extra }
  return reply.code(httpStatus).headers(headers).type('application/problem+json').send(body)
}

/** The URL the client asked for, absolute (PaymentRequired.resource.url), on PUBLIC_URL: never the Host a caller wrote. */
function absoluteUrl(request: FastifyRequest): string {
  return `${publicBaseUrl(request.server)}${request.url}`
}

/**
 * The headers of a pending settlement's resend. The request's Idempotency-Key goes with it, so the
 * resend's claim records the key (this request gave its claim back while the settlement confirmed).
 * Only when the key's scope is the intent's sender: the resend carries no credentials (none is
 * stored), so a key scoped to an API key or OAuth identity would be recorded under another scope.
 */
function replayHeaders(request: FastifyRequest, chainId: string): Record<string, string> {
  const key = request.headers['idempotency-key']
  const carried = typeof key === 'string' && request.apiKeyId === undefined
  return { 'content-type': 'application/json', 'x-chain-id': chainId, ...(carried ? { 'idempotency-key': key } : {}) }
}
