// The Fastify adapter of x402 payments (there is no @x402/fastify): a route handler that prices
// the request from what it pays for (its chain and intent, resolved before), runs the handler in the paid order of
// payments/createPayments.ts, and answer 402 0x55 with PAYMENT-REQUIRED, or the handler's answer
// with PAYMENT-RESPONSE.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Hex } from 'viem'
import type { PricedRoute } from '../../config/paymentsConfig.ts'
import type { HandlerResult, PaidHandlerContext, Payments } from '../../payments/createPayments.ts'
import { Status } from '../../status/statusCodes.ts'
import type { PaymentOutcomeLabel } from '../../metrics/createMetrics.ts'
import type { GatewayContext } from '../gatewayContext.ts'
import { toProblemDetails } from '../problemDetails.ts'

export type PaidRouteOptions<T> = {
  payments: Payments
  route: PricedRoute
  /**
   * What the request pays for, read from the parsed request; undefined when the request cannot
   * be priced (no chain could be chosen, the intent does not parse): the handler then runs free
   * and answers the input error itself, so a bad request is a 4xx, never a 402.
   */
  describe(request: FastifyRequest): { chainId: string; intentHash: Hex } | undefined
  /**
   * An answer owed before any price (a replayed outcome, a refusal of the gateway's limits):
   * sent free, without a 402, nothing reserved or charged. Undefined: the request is priced.
   */
  before?: ((request: FastifyRequest, reply: FastifyReply) => Promise<T | undefined>) | undefined
  /** Extensions every offer of the route declares (its x402 `bazaar` discovery). */
  extensions?: Record<string, unknown> | undefined
  /** Whether the request carries a valid API key (priced only with PRICE_API_KEY_CLIENTS). */
  isApiKeyClient?(request: FastifyRequest): boolean
  /** The route's work; a handler that broadcasts calls `context.settle()` first and stops unless it is ok. */
  handle(request: FastifyRequest, context: PaidHandlerContext, reply: FastifyReply): Promise<HandlerResult<T>>
  /** Told what became of each priced request's payment (metrics). */
  onPayment?: ((chainId: string, outcome: PaymentOutcomeLabel) => void) | undefined
  /** Writes the handler's answer (status, headers, body) to the reply; `extra` goes into the body (a pending settlement's `payment`). */
  send(request: FastifyRequest, reply: FastifyReply, result: HandlerResult<T>, extra?: Record<string, unknown>): FastifyReply
}

type Priced = { chainId: string; intentHash: Hex }

/** Spread into a route's options: `app.post(url, { ...paidRoute(options), schema })`. */
export function paidRoute<T>(options: PaidRouteOptions<T>): { handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> } {
  return {
    handler: async (request, reply) => {
      // The price may depend on the intent's chain: known only once the body is parsed.
      const priced = options.describe(request)
      if (!priced) {
        const result = await options.handle(request, { settle: async () => ({ ok: true, response: undefined }), payment: 'none' }, reply)
        return options.send(request, reply, result)
      }
      const owed = await options.before?.(request, reply)
      if (owed !== undefined) return options.send(request, reply, { httpStatus: 200, value: owed })
      if (reply.sent) return reply
      const { chainId, intentHash } = priced
      const header = request.headers['payment-signature']
      const outcome = await options.payments.run(
        {
          route: options.route,
          chainId,
          intentHash,
          resourceUrl: absoluteUrl(request),
          paymentSignature: Array.isArray(header) ? header[0] : header,
          apiKeyClient: options.isApiKeyClient?.(request) ?? false,
          extensions: options.extensions,
          // Sent again by the resolver if its settlement is pending: the same route, chain and body.
          replay: { method: 'POST', url: request.url, headers: { 'content-type': 'application/json', 'x-chain-id': chainId }, body: request.body },
        },
        (context) => options.handle(request, context, reply),
      )
      const note = (label: PaymentOutcomeLabel) => options.onPayment?.(chainId, label)
      switch (outcome.kind) {
        case 'served': {
          if (outcome.charged === 'pending') {
            // x402 settlement_pending: 202 with Location (the route's 0xF3), never 402; the body says which settlement it waits for.
            const settlement = outcome.paymentResponse!
            reply.header('payment-response', encodePaymentResponseHeader(settlement))
            return options.send(request, reply, outcome.result, {
              payment: { status: settlement.errorReason, transaction: settlement.transaction, network: settlement.network, payer: settlement.payer, detail: settlement.errorMessage },
            })
          }
          if (outcome.charged !== 'free') note(outcome.charged)
          if (outcome.paymentResponse) reply.header('payment-response', encodePaymentResponseHeader(outcome.paymentResponse))
          const sent = options.send(request, reply, outcome.result)
          if (outcome.payment?.paymentId && outcome.paymentResponse) {
            await options.payments.remember(outcome.payment, {
              httpStatus: outcome.result.httpStatus,
              headers: { 'payment-response': encodePaymentResponseHeader(outcome.paymentResponse) },
              body: outcome.result.value,
            })
          }
          return sent
        }
        case 'replay':
          note('replayed')
          return reply.code(outcome.answer.httpStatus).headers(outcome.answer.headers).send(outcome.answer.body)
        case 'conflict':
          note('conflict')
          return problem(request, reply, { chainId, intentHash }, 409, Status.IN_FLIGHT, 'The payment identifier is already in use', outcome.detail, {})
        case 'payment-required': {
          const { paymentRequired } = outcome
          note(paymentRequired.error && paymentRequired.error !== 'Payment required' ? 'refused' : 'required')
          const detail =
            paymentRequired.error && paymentRequired.error !== 'Payment required'
              ? `the payment was refused: ${paymentRequired.error}`
              : 'pay with x402: repeat the request with a PAYMENT-SIGNATURE header for one of paymentRequired.accepts'
          return problem(
            request,
            reply,
            { chainId, intentHash },
            402,
            Status.FUNDS_REQUESTED,
            'Payment required',
            detail,
            {
              'payment-required': encodePaymentRequiredHeader(paymentRequired),
              'x-payment-required': 'true',
              'cache-control': 'no-store',
            },
            { paymentRequired },
          )
        }
      }
    },
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
  const context: GatewayContext = request.gateway ?? { chainId: priced.chainId, chainType: '', intentHash: priced.intentHash, status: undefined }
  context.status = status
  context.intentHash ??= priced.intentHash
  const body = { ...toProblemDetails({ httpStatus, status, title, detail, context }), ...extra }
  return reply.code(httpStatus).headers(headers).type('application/problem+json').send(body)
}

/** The URL the client asked for, absolute (PaymentRequired.resource.url), from Host as Fastify sees it. */
function absoluteUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${request.url}`
}
