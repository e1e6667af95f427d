// Mounts validate or execute: the request's intent read once, an answer owed before any price,
// then the paid order of http/plugins/payments.ts (admit the payment, the route's work, finish
// the payment; the route's price is looked up per chain, and a free chain or a gateway without
// prices runs the same steps with a free ticket). The route's work settles before it broadcasts.
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  preValidationAsyncHookHandler,
} from 'fastify'
import type { PricedRoute } from '../../../config/paymentsConfig.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import type { Metrics } from '../../../metrics/createMetrics.ts'
import type { Payments, PaymentTicket } from '../../../payments/createPayments.ts'
import { declareHttpDiscovery } from '../../../payments/declareBazaarDiscovery.ts'
import type { FundingShortfall } from '../../../ports/fundingShortfall.ts'
import type { IntentBody } from '../../../ports/intent.ts'
import type { ExecutionReport, IntentOutcome } from '../../../ports/intentOutcome.ts'
import { getStatusCode, Status } from '../../../status/statusCodes.ts'
import { servePaid } from '../../plugins/payments.ts'
import type { ApiDocs } from '../../schemas/createApiDocs.ts'
import { sendOutcome } from '../../sendOutcome.ts'
import { type IntentRequest, readIntentRequest, resolveIntentRequest } from './intentRequest.ts'

export type IntentRouteOptions = {
  url: string
  route: PricedRoute
  schema: FastifySchema
  /** The runtimes' examples, for the route's x402 discovery (createApiDocs.ts). */
  docs: ApiDocs
  registry: ChainRegistry
  payments?: Payments | undefined
  metrics?: Metrics | undefined
  preValidation?: preValidationAsyncHookHandler | undefined
  /**
   * What the route answers before any price or work, when it owes one (execute: a replayed
   * outcome, a refusal of standing or budgets); undefined: go on.
   */
  early?(req: IntentRequest, request: FastifyRequest): Promise<IntentOutcome | undefined>
  /**
   * The route's work on a parsed request; it calls `ticket.settle()` before it broadcasts anything
   * (free: always ok). `receivedAt`: when the request came (performance.now()).
   */
  run(req: IntentRequest, ticket: PaymentTicket, request: FastifyRequest, receivedAt: number): Promise<IntentOutcome>
}

/** What the route answered. */
type Answer = { req: IntentRequest; outcome: IntentOutcome; funding?: FundingShortfall | undefined }

export function registerIntentRoute(
  app: FastifyInstance,
  { url, route, schema, docs, registry, payments, metrics, preValidation, early, run }: IntentRouteOptions,
) {
  const send = (request: FastifyRequest, reply: FastifyReply, a: Answer, extra?: Record<string, unknown>) =>
    sendOutcome(
      request,
      reply,
      a.outcome,
      {
        sender: a.req.intent.sender,
        executor: a.req.adapter.executorAddress,
        validAfter: a.req.intent.validAfter,
        funding: a.funding,
      },
      extra,
    )
  // The chain's 0x54: say what is short (a failed read only makes the answer less precise).
  const answerOf = async (req: IntentRequest, outcome: IntentOutcome): Promise<Answer> => ({
    req,
    outcome,
    funding:
      outcome.status === Status.INSUFFICIENT_FUNDS
        ? await req.adapter.fundingShortfall?.(req.intent, req.account).catch(() => undefined)
        : undefined,
  })
  const discovery = payments && httpDiscoveryOf(route, schema, docs)
  app.post<{ Body: IntentBody }>(url, {
    schema,
    ...(preValidation ? { preValidation } : {}),
    // The chain, intent and hash, resolved once, right after the body's schema (before pricing).
    preHandler: async (request) => void resolveIntentRequest(registry, request),
    handler: async (request, reply) => {
      const receivedAt = performance.now() - reply.elapsedTime
      // A request that is not an intent, or for a chain not served here, is answered 4xx (never 402).
      const req = readIntentRequest(registry, request, reply)
      if (!req) return reply
      // An answer owed before any price: sent free, nothing reserved or charged.
      const owed = await early?.(req, request)
      if (owed) return send(request, reply, await answerOf(req, owed))
      return servePaid<Answer>(
        request,
        reply,
        { route, chainId: req.adapter.chainId, intentHash: req.intentHash },
        {
          payments,
          apiKeyClient: request.apiKeyId !== undefined,
          extensions: discovery,
          onPayment: metrics && ((chain, outcome) => metrics.recordPayment({ chain, outcome })),
          work: async (ticket) => {
            const a = await answerOf(req, await run(req, ticket, request, receivedAt))
            // A payment buys one attempt: a transaction that was mined uses it up, whether the intent
            // ran or reverted (a revert is the intent's outcome). Anything else that settled (not sent,
            // dropped, out of the gas we gave it, not final yet) stays a credit for the same intent.
            const httpStatus = getStatusCode(a.outcome.status).httpStatus
            return {
              value: a,
              answer:
                route === 'execute'
                  ? {
                      httpStatus,
                      charge: false,
                      delivered: usesUpPayment(a.outcome.execution),
                      deliveredLater: a.outcome.executionLater?.then(usesUpPayment),
                    }
                  : { httpStatus },
            }
          },
          send: (a, extra) => send(request, reply, a, extra),
        },
      )
    },
  })
}

/** Whether an execution uses its payment up: mined, whether the intent ran or reverted, and final. */
function usesUpPayment(execution: ExecutionReport | undefined): boolean {
  return (
    execution !== undefined &&
    execution.final === true &&
    (execution.state === 'mined' || execution.state === 'reverted')
  )
}

/** The route's x402 `bazaar` declaration, from its own body schema and the OpenAPI examples. */
export function httpDiscoveryOf(route: PricedRoute, schema: FastifySchema, docs: ApiDocs): Record<string, unknown> {
  const { $id: _id, ...body } = (schema.body ?? {}) as Record<string, unknown>
  const example = docs.intentExamples[route] as Record<string, unknown> | undefined
  return declareHttpDiscovery({ method: 'POST', bodySchema: body, example, outputExample: docs.intentExamples.answer })
}
