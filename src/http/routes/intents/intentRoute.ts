// Mounts validate or execute: plain, or, when the gateway takes x402 payments, through the paid
// order of payments/createPayments.ts (the route's price is looked up per chain; a free chain
// runs as if unpriced). The route's work is one function that may call `settle` before it
// broadcasts.
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, preValidationAsyncHookHandler } from 'fastify'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import type { FundingShortfall } from '../../../ports/fundingShortfall.ts'
import type { PricedRoute } from '../../../config/paymentsConfig.ts'
import type { IntentBody } from '../../../ports/intent.ts'
import type { IntentOutcome } from '../../../ports/intentOutcome.ts'
import type { Metrics } from '../../../metrics/createMetrics.ts'
import type { PaidHandlerContext, Payments } from '../../../payments/createPayments.ts'
import { getStatusCode, Status } from '../../../status/statusCodes.ts'
import { paidRoute } from '../../plugins/payments.ts'
import { declareHttpDiscovery } from '../../../payments/declareBazaarDiscovery.ts'
import { intentExamples, requestExamples } from '../../schemas/httpSchemas.ts'
import { sendOutcome } from '../../sendOutcome.ts'
import { type IntentRequest, readIntentRequest, resolveIntentRequest } from './intentRequest.ts'

export type IntentRouteOptions = {
  url: string
  route: PricedRoute
  schema: FastifySchema
  registry: ChainRegistry
  payments?: Payments | undefined
  metrics?: Metrics | undefined
  preValidation?: preValidationAsyncHookHandler | undefined
  /**
   * What the route answers before any price or work, when it owes one (execute: a replayed
   * outcome, a refusal of standing or budgets); undefined: go on.
   */
  early?(req: IntentRequest, request: FastifyRequest): Promise<IntentOutcome | undefined>
  /** The route's work on a parsed request; `settle` is the x402 settlement (free: always ok); `paid` says who pays, if anyone. */
  run(req: IntentRequest, settle: PaidHandlerContext['settle'], paid: RunContext): Promise<IntentOutcome>
}

/** The request and what pays for it. */
export type RunContext = Omit<PaidHandlerContext, 'settle'> & { request: FastifyRequest }

/** What the route answered: its outcome, or nothing when readIntentRequest answered itself (421). */
type Answer = { req: IntentRequest; outcome: IntentOutcome; funding?: FundingShortfall | undefined } | undefined

export function registerIntentRoute(app: FastifyInstance, { url, route, schema, registry, payments, metrics, preValidation, early, run }: IntentRouteOptions) {
  const answer = async (request: FastifyRequest, reply: FastifyReply, { settle, ...paid }: PaidHandlerContext, earlyDone = false): Promise<Answer> => {
    const req = readIntentRequest(registry, request as FastifyRequest<{ Body: IntentBody }>, reply)
    if (!req) return undefined
    const outcome = (!earlyDone && (await early?.(req, request))) || (await run(req, settle, { ...paid, request }))
    // The chain's 0x54: say what is short (a failed read only makes the answer less precise).
    const funding = outcome.status === Status.INSUFFICIENT_FUNDS ? await req.adapter.fundingShortfall?.(req.intent).catch(() => undefined) : undefined
    return { req, outcome, funding }
  }
  const send = (request: FastifyRequest, reply: FastifyReply, a: Answer, extra?: Record<string, unknown>) =>
    a ? sendOutcome(request, reply, a.outcome, { sender: a.req.intent.sender, executor: a.req.adapter.executorAddress, validAfter: a.req.intent.validAfter, funding: a.funding }, extra) : reply
  // The chain, intent and hash, resolved once, right after the body's schema (before pricing).
  const resolveOnce = async (request: FastifyRequest) => void resolveIntentRequest(registry, request as FastifyRequest<{ Body: IntentBody }>)
  const options = { schema, ...(preValidation ? { preValidation } : {}) }

  if (!payments) {
    const free: PaidHandlerContext = { settle: async () => ({ ok: true, response: undefined }), payment: 'none' }
    app.post<{ Body: IntentBody }>(url, { ...options, preHandler: resolveOnce }, async (request, reply) => send(request, reply, await answer(request, reply, free)))
    return
  }
  app.post<{ Body: IntentBody }>(url, {
    ...options,
    preHandler: resolveOnce,
    ...paidRoute<Answer>({
      payments,
      route,
      describe: (request) => describeIntent(registry, request as FastifyRequest<{ Body: IntentBody }>),
      isApiKeyClient: (request) => request.apiKeyId !== undefined,
      extensions: httpDiscoveryOf(route, schema),
      // Only priced requests get here, so the chain is configured: readIntentRequest answers nothing itself.
      before: early
        ? async (request, reply) => {
            const req = readIntentRequest(registry, request as FastifyRequest<{ Body: IntentBody }>, reply)
            const outcome = req && (await early(req, request))
            return req && outcome ? { req, outcome } : undefined
          }
        : undefined,
      onPayment: metrics && ((chain, outcome) => metrics.recordPayment({ chain, outcome })),
      async handle(request, context, reply) {
        const a = await answer(request, reply, context, early !== undefined)
        const status = a?.outcome.status ?? Status.UNSUPPORTED_CHAIN
        // A payment buys one attempt: a transaction that was mined uses it up, whether the intent
        // ran or reverted (a revert is the intent's outcome). Anything else that settled (not sent,
        // dropped, out of the gas we gave it, not final yet) stays a credit for the same intent.
        const execution = a?.outcome.execution
        const delivered = execution !== undefined && execution.final === true && (execution.state === 'mined' || execution.state === 'reverted')
        return { httpStatus: getStatusCode(status).httpStatus, value: a, ...(route === 'execute' ? { charge: false, delivered } : {}) }
      },
      send: (request, reply, result, extra) => send(request, reply, result.value, extra),
    }),
  })
}

/** The chain and intent a request pays for, without answering it; undefined when it cannot be priced. */
function describeIntent(registry: ChainRegistry, request: FastifyRequest<{ Body: IntentBody }>) {
  const resolved = resolveIntentRequest(registry, request)
  return resolved.kind === 'ready' ? { chainId: resolved.chainId, intentHash: resolved.req.intentHash } : undefined
}

/** The route's x402 `bazaar` declaration, from its own body schema and the OpenAPI examples. */
export function httpDiscoveryOf(route: PricedRoute, schema: FastifySchema): Record<string, unknown> {
  const { $id: _id, ...body } = (schema.body ?? {}) as Record<string, unknown>
  const example = requestExamples.bodies[route === 'execute' ? 'executeIntent' : 'validateIntent'] as Record<string, unknown> | undefined
  return declareHttpDiscovery({ method: 'POST', bodySchema: body, example, outputExample: intentExamples[200]?.[0] })
}
