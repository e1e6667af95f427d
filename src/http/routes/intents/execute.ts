// POST /intents/execute: validate, then execute on-chain through the relayer.
import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify'
import type { ChainRegistry } from '../../../chains/createChainRegistry.ts'
import type { Journal } from '../../../journal/openJournal.ts'
import type { Metrics } from '../../../metrics/createMetrics.ts'
import { executeIntent } from '../../../intents/executeIntent.ts'
import type { Payments } from '../../../payments/createPayments.ts'
import { intentSchema } from '../../../intents/intentSchema.ts'
import { apiKeyRequired, intentExamples, intentStatuses, outcomeResponses, requestHeadersSchema } from '../../schemas/httpSchemas.ts'
import { registerIntentRoute } from './intentRoute.ts'

export type ExecuteRouteOptions = {
  registry: ChainRegistry
  journal: Journal
  receiptTimeoutMs: number
  /** Refuse unsigned intents at once with 401 (0xE5) instead of asking the chain. */
  requireSignedIntents: boolean
  metrics?: Metrics | undefined
  preValidation?: preValidationAsyncHookHandler | undefined
  /** x402 prices; without them, execute is free. */
  payments?: Payments | undefined
}

export function registerExecuteRoute(app: FastifyInstance, { registry, journal, receiptTimeoutMs, requireSignedIntents, metrics, preValidation, payments }: ExecuteRouteOptions) {
  const schema = {
    operationId: 'executeIntent',
    tags: ['intents'],
    summary: 'Validate an intent, then execute it on-chain through the relayer',
    description: 'A non-success validation is answered as validate would answer it, and nothing is sent. Then the relayer sends the intent (with `signature`, the signed entry point) and waits for the receipt: 200 (0x11) when mined, the decoded code on a revert, 202 (0xF3) with Location when not mined in time. The same intent never executes twice (409). Without a signature, a 401 (0xE5) body carries `signing`, the typed data to sign.',
    headers: requestHeadersSchema,
    body: intentSchema,
    response: outcomeResponses(intentStatuses, intentExamples),
    ...(preValidation ? { security: apiKeyRequired } : {}),
  }
  registerIntentRoute(app, {
    url: '/intents/execute',
    route: 'execute',
    schema,
    registry,
    payments,
    metrics,
    preValidation,
    run: (req, settle) =>
      executeIntent({
        ...req,
        requireSignature: requireSignedIntents,
        journal,
        receiptTimeoutMs,
        // x402: the payment is settled after the simulation and before the broadcast.
        beforeBroadcast: async () => {
          const settled = await settle()
          return settled.ok ? { ok: true } : { ok: false, detail: `the payment could not be settled: ${settled.reason}` }
        },
        onEnded: metrics && ((outcome) => metrics.recordExecution({ chain: req.adapter.chainId, outcome })),
        onReceipt: metrics && ((seconds) => metrics.recordReceiptWait({ chain: req.adapter.chainId, seconds })),
        onBackgroundError: (err, record) =>
          app.log.warn({ err, intentHash: record.intentHash, chainId: record.chainId }, 'could not watch a sent execution; the reconciler will settle it'),
      }),
  })
}
