// POST /intents/validate: the validator's verdict on an intent, without executing it.
import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify'
import type { ChainRegistry } from '../../../chains/createChainRegistry.ts'
import type { IntentBody } from '../../../intents/intent.ts'
import { intentSchema } from '../../../intents/intentSchema.ts'
import { validateIntent } from '../../../intents/validateIntent.ts'
import { sendOutcome } from '../../sendOutcome.ts'
import { apiKeyOptional, intentExamples, intentStatuses, outcomeResponses, requestHeadersSchema } from '../../schemas/httpSchemas.ts'
import { readIntentRequest } from './intentRequest.ts'

export type ValidateRouteOptions = { registry: ChainRegistry; preValidation?: preValidationAsyncHookHandler | undefined }

export function registerValidateRoute(app: FastifyInstance, { registry, preValidation }: ValidateRouteOptions) {
  const schema = {
    operationId: 'validateIntent',
    tags: ['intents'],
    summary: 'Ask the chain\'s validator whether an intent may run, without running it',
    description: 'One read of the validator contract (and of the signature, when the body carries one); the ERC-1066 code it returns decides the HTTP status. With API keys configured, a key is optional or required here as the gateway is configured (a key that is sent must be valid).',
    headers: requestHeadersSchema,
    body: intentSchema,
    response: outcomeResponses(intentStatuses, intentExamples),
    ...(preValidation ? { security: apiKeyOptional } : {}),
  }
  app.post<{ Body: IntentBody }>('/intents/validate', { schema, ...(preValidation ? { preValidation } : {}) }, async (request, reply) => {
    const req = readIntentRequest(registry, request, reply)
    if (!req) return reply
    const outcome = await validateIntent(req)
    return sendOutcome(request, reply, outcome, { sender: req.intent.sender, executor: req.adapter.executorAddress })
  })
}
