// POST /intents/validate: the validator's verdict on an intent, without executing it.
import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify'
import type { ChainRegistry } from '../../../chains/createChainRegistry.ts'
import type { IntentBody } from '../../../intents/intent.ts'
import { intentSchema } from '../../../intents/intentSchema.ts'
import { validateIntent } from '../../../intents/validateIntent.ts'
import { sendOutcome } from '../../sendOutcome.ts'
import { readIntentRequest } from './intentRequest.ts'

export type ValidateRouteOptions = { registry: ChainRegistry; preValidation?: preValidationAsyncHookHandler | undefined }

export function registerValidateRoute(app: FastifyInstance, { registry, preValidation }: ValidateRouteOptions) {
  app.post<{ Body: IntentBody }>('/intents/validate', { schema: { body: intentSchema }, ...(preValidation ? { preValidation } : {}) }, async (request, reply) => {
    const req = readIntentRequest(registry, request, reply)
    if (!req) return reply
    const outcome = await validateIntent(req)
    return sendOutcome(request, reply, outcome, { sender: req.intent.sender, executor: req.adapter.executorAddress })
  })
}
