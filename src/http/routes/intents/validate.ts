// POST /intents/validate: the validator's verdict on an intent, without executing it.
import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import { intentSchema } from '../../../intents/intentSchema.ts'
import { validateIntent } from '../../../intents/validateIntent.ts'
import type { Metrics } from '../../../metrics/createMetrics.ts'
import type { Payments } from '../../../payments/createPayments.ts'
import type { ApiDocs } from '../../schemas/createApiDocs.ts'
import { apiKeyOptional, intentStatuses, outcomeResponses, requestHeadersSchema } from '../../schemas/httpSchemas.ts'
import { registerIntentRoute } from './intentRoute.ts'

export type ValidateRouteOptions = {
  registry: ChainRegistry
  /** The runtimes' examples, for the route's x402 discovery (createApiDocs.ts). */
  docs: ApiDocs
  preValidation?: preValidationAsyncHookHandler | undefined
  payments?: Payments | undefined
  metrics?: Metrics | undefined
}

export function registerValidateRoute(
  app: FastifyInstance,
  { registry, docs, preValidation, payments, metrics }: ValidateRouteOptions,
) {
  const schema = {
    operationId: 'validateIntent',
    tags: ['intents'],
    summary: "Ask the chain's validator whether an intent may run, without running it",
    description:
      'One read of the validator contract (and of the signature, when the body carries one); the ERC-1066 code it returns decides the HTTP status. With API keys configured, a key is optional or required here as the gateway is configured (a key that is sent must be valid).',
    headers: requestHeadersSchema,
    body: intentSchema,
    response: outcomeResponses(intentStatuses),
    ...(preValidation ? { security: apiKeyOptional } : {}),
  }
  registerIntentRoute(app, {
    url: '/intents/validate',
    route: 'validate',
    schema,
    docs,
    registry,
    payments,
    metrics,
    preValidation,
    run: (req) => validateIntent(req),
  })
}
