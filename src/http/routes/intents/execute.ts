// POST /intents/execute: validate, then execute on-chain through the relayer.
import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify'
import type { ChainRegistry } from '../../../chains/createChainRegistry.ts'
import type { Journal } from '../../../journal/openJournal.ts'
import type { Metrics } from '../../../metrics/createMetrics.ts'
import { executeIntent } from '../../../intents/executeIntent.ts'
import type { IntentBody } from '../../../intents/intent.ts'
import { intentSchema } from '../../../intents/intentSchema.ts'
import { sendOutcome } from '../../sendOutcome.ts'
import { readIntentRequest } from './intentRequest.ts'

export type ExecuteRouteOptions = {
  registry: ChainRegistry
  journal: Journal
  receiptTimeoutMs: number
  /** Refuse unsigned intents at once with 401 (0xE5) instead of asking the chain. */
  requireSignedIntents: boolean
  metrics?: Metrics | undefined
  preValidation?: preValidationAsyncHookHandler | undefined
}

export function registerExecuteRoute(app: FastifyInstance, { registry, journal, receiptTimeoutMs, requireSignedIntents, metrics, preValidation }: ExecuteRouteOptions) {
  app.post<{ Body: IntentBody }>('/intents/execute', { schema: { body: intentSchema }, ...(preValidation ? { preValidation } : {}) }, async (request, reply) => {
    const req = readIntentRequest(registry, request, reply)
    if (!req) return reply
    const outcome = await executeIntent({
      ...req,
      requireSignature: requireSignedIntents,
      journal,
      receiptTimeoutMs,
      onEnded: metrics && ((outcome) => metrics.recordExecution({ chain: req.adapter.chainId, outcome })),
      onBackgroundError: (err, record) =>
        app.log.warn({ err, intentHash: record.intentHash, chainId: record.chainId }, 'could not watch a sent execution; the reconciler will settle it'),
    })
    return sendOutcome(request, reply, outcome, { sender: req.intent.sender, executor: req.adapter.executorAddress })
  })
}
