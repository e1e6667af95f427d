// GET /intents/{intentHash}: the state of an execution this gateway sent, from the journal, with
// the status execute would give now (202 while unconfirmed, 200 once executed, the revert's code).

import type { FastifyInstance } from 'fastify'
import type { Hex } from 'viem'
import { InputError } from '../../../errors/inputError.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import { intentHashParamsSchema } from '../../../intents/intentSchema.ts'
import { toReport } from '../../../intents/toReport.ts'
import { isSettlementPending } from '../../../payments/settlementPending.ts'
import type { Journal } from '../../../ports/journal.ts'
import type { PaymentRecord } from '../../../ports/paymentLedger.ts'
import { Status } from '../../../status/statusCodes.ts'
import { statusVocabulary, type X402Settlement } from '../../../status/statusVocabulary.ts'
import { toProblemDetails } from '../../problemDetails.ts'
import { namedChain } from '../../requestChain.ts'
import { chainHeaderSchema, intentStatuses, outcomeResponses } from '../../schemas/httpSchemas.ts'
import { sendOutcome } from '../../sendOutcome.ts'

export function registerGetIntentRoute(
  app: FastifyInstance,
  { registry, journal }: { registry: ChainRegistry; journal: Journal },
) {
  app.get<{ Params: { intentHash: string } }>(
    '/intents/:intentHash',
    {
      schema: {
        operationId: 'getIntent',
        tags: ['intents'],
        summary: 'The state of an execution this gateway sent',
        description:
          "From the journal, with the status execute would give now: 202 (0xF3) while unconfirmed (pending, or mined but not yet CONFIRMATIONS blocks deep), 200 (0x11) once executed, the revert's code otherwise; 404 for an intent this gateway never sent. X-Chain-Id narrows the search to one chain. `statusWords` says the same in the other ecosystems' words (docs/api-contract.md §18): `taskState` (the MCP task's), `relayerStatus` and `relayerMeaning` (the `relayer_*` code a Gelato-style client reads: 100 pending, 110 submitted, 200 included, 400 rejected, 500 reverted) and, when the intent was paid for with x402, `x402Settlement` (settled, settlement_pending, credited, not charged).",
        headers: chainHeaderSchema,
        params: intentHashParamsSchema,
        response: outcomeResponses(
          [...intentStatuses.filter((s) => s !== 413 && s !== 415), 404].sort((a, b) => a - b),
        ),
      },
    },
    async (request, reply) => {
      const intentHash = request.params.intentHash.toLowerCase() as Hex
      request.gateway.intentHash = intentHash
      const chainId = namedChain(registry, request)?.chainId
      const record = await journal.get(intentHash, chainId)
      // What was paid for this intent with x402 (every authorization, whatever became of it).
      const paymentsOn = async (chains: string[]) =>
        (await Promise.all(chains.map((c) => journal.payments.forIntent(c, intentHash)))).flat().map(toPaymentReport)
      if (!record) {
        const errors = [
          {
            field: 'intentHash',
            message: `no execution of this intent was sent by this gateway${chainId ? ` on ${chainId}` : ''}`,
          },
        ]
        // Paid for, never sent (refused, or the gateway stopped before the broadcast): still 404, with what became of the payments.
        const payments = await paymentsOn(chainId ? [chainId] : registry.adapters.map((a) => a.chainId))
        if (payments.length === 0) throw new InputError('Unknown intent', { httpStatus: 404, errors })
        // x402 settlement_pending: the intent is sent once its payment's settlement confirms: 202 (0xF3) meanwhile.
        const waiting = payments.find((p) => p.state === 'settlement_pending' || p.awaitingDelivery)
        if (waiting) {
          const adapter = registry.adapters.find((a) => a.chainId === waiting.chainId)
          return sendOutcome(
            request,
            reply,
            {
              status: Status.SUBMITTED,
              intentHash,
              chainId: waiting.chainId,
              chainType: adapter?.chainType,
              detail:
                waiting.state === 'settlement_pending'
                  ? `not sent yet: its payment's settlement ${waiting.transaction} is not confirmed; the intent is sent once it is`
                  : 'its payment is settled: the intent is being sent',
            },
            undefined,
            {
              payments: payments.map(({ chainId: _c, awaitingDelivery: _a, ...p }) => p),
              // Nothing broadcast yet: pending (100), paid or being paid for.
              statusWords: statusVocabulary.ofExecution(
                'claimed',
                false,
                waiting.state === 'settlement_pending' ? 'settlement_pending' : 'settled',
              ),
            },
          )
        }
        request.gateway.status = Status.INVALID_FORMAT
        const problem = toProblemDetails({
          httpStatus: 404,
          status: Status.INVALID_FORMAT,
          title: 'Unknown intent',
          detail: `intentHash: ${errors[0]!.message}; its x402 payments are listed`,
          context: request.gateway,
          errors,
        })
        return reply
          .code(404)
          .type('application/problem+json')
          .send({ ...problem, payments: payments.map(({ chainId: _c, awaitingDelivery: _a, ...p }) => p) })
      }
      const adapter = registry.adapters.find((a) => a.chainId === record.chainId)
      const payments = (await paymentsOn([record.chainId])).map(({ chainId: _c, awaitingDelivery: _a, ...p }) => p)
      // Mined (or reverted) but not CONFIRMATIONS blocks deep yet: 202 (0xF3), a reorg can undo it.
      const unconfirmed = (record.state === 'mined' || record.state === 'reverted') && !record.final
      return sendOutcome(
        request,
        reply,
        {
          status:
            record.state === 'pending' || record.state === 'claimed' || unconfirmed ? Status.SUBMITTED : record.status,
          intentHash,
          chainId: record.chainId,
          chainType: adapter?.chainType,
          detail: unconfirmed
            ? `the transaction was ${record.state === 'mined' ? 'mined (executed' : 'mined (reverted'}, code 0x${record.status.toString(16).padStart(2, '0').toUpperCase()}) but is not final until ${adapter?.confirmations ?? 1} blocks deep`
            : record.detail,
          execution: toReport(record, adapter),
        },
        undefined,
        {
          // A batch (account mode): its calls as signed, in order.
          ...(record.intent.calls
            ? { calls: record.intent.calls.map((c) => ({ target: c.target, data: c.data, value: c.value.toString() })) }
            : {}),
          ...(payments.length > 0 ? { payments } : {}),
          statusWords: statusVocabulary.ofExecution(record.state, record.final, settlementOf(payments)),
        },
      )
    },
  )
}

/** The x402 word of what was paid for an intent: the payment that counts most (one that paid for it first); none without a payment. */
function settlementOf(payments: Array<{ state: string }>): X402Settlement | undefined {
  if (payments.length === 0) return undefined
  const words = payments.map((p) => statusVocabulary.ofPayment(p.state))
  return (['settled', 'settlement_pending', 'credited', 'not charged'] as const).find((w) => words.includes(w))
}

/** `settlement_pending`: a reservation whose settlement was broadcast and is not confirmed yet (x402). */
function toPaymentReport(p: PaymentRecord) {
  const state = isSettlementPending(p) ? 'settlement_pending' : p.state
  return {
    state,
    route: p.route,
    network: p.network,
    asset: p.asset,
    amount: p.amount,
    payer: p.payer,
    payTo: p.payTo,
    transaction: p.transaction,
    reason: p.reason,
    chainId: p.chainId,
    awaitingDelivery: p.state === 'settled' && p.pendingRequest !== undefined,
  }
}
