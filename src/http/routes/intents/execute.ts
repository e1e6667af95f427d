// POST /intents/execute: validate, then execute on-chain through the relayer.
import type { FastifyInstance, FastifyRequest, preValidationAsyncHookHandler } from 'fastify'
import { defaultIdempotencyKeyTtlMs } from '../../../config/idempotencyConfig.ts'
import { GatewayError } from '../../../errors/gatewayError.ts'
import { answerIdempotencyKey, idempotencyKeyReused } from '../../../idempotency/answerIdempotencyKey.ts'
import { bodyFingerprint } from '../../../idempotency/bodyFingerprint.ts'
import { idempotencyScope } from '../../../idempotency/idempotencyScope.ts'
import { readIdempotencyKey } from '../../../idempotency/readIdempotencyKey.ts'
import { withIdempotencyKey } from '../../../idempotency/withIdempotencyKey.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import type { ExecutionGuard, GuardSubject } from '../../../intents/createExecutionGuard.ts'
import { type PreparedIntent, paymentCredited, prepareIntent } from '../../../intents/executeIntent.ts'
import { intentSchema } from '../../../intents/intentSchema.ts'
import { replayExecution } from '../../../intents/replayExecution.ts'
import type { Metrics } from '../../../metrics/createMetrics.ts'
import type { Payments, PaymentTicket } from '../../../payments/createPayments.ts'
import type { IntentOutcome } from '../../../ports/intentOutcome.ts'
import type { IdempotencyKeyClaim, Journal } from '../../../ports/journal.ts'
import { Status } from '../../../status/statusCodes.ts'
import { paymentHeaderOf } from '../../plugins/payments.ts'
import { readReceiptWait } from '../../readPreferences.ts'
import type { ApiDocs } from '../../schemas/createApiDocs.ts'
import { apiKeyRequired, intentStatuses, outcomeResponses, requestHeadersSchema } from '../../schemas/httpSchemas.ts'
import { toClientAddressKey } from '../../toClientAddressKey.ts'
import type { IntentRequest } from './intentRequest.ts'
import { registerIntentRoute } from './intentRoute.ts'

export type ExecuteRouteOptions = {
  registry: ChainRegistry
  /** The runtimes' examples, for the route's x402 discovery (createApiDocs.ts). */
  docs: ApiDocs
  journal: Journal
  receiptTimeoutMs: number
  /** Refuse unsigned intents at once with 401 (0xE5) instead of asking the chain. */
  requireSignedIntents: boolean
  metrics?: Metrics | undefined
  preValidation?: preValidationAsyncHookHandler | undefined
  /** x402 prices; without them, execute is free. */
  payments?: Payments | undefined
  /** Standing after reverts and spend budgets; without it, nothing is counted. */
  guard?: ExecutionGuard | undefined
  /** How long an Idempotency-Key is kept (IDEMPOTENCY_KEY_TTL_HOURS); default 24 hours. */
  idempotencyKeyTtlMs?: number | undefined
}

export function registerExecuteRoute(
  app: FastifyInstance,
  {
    registry,
    docs,
    journal,
    receiptTimeoutMs,
    requireSignedIntents,
    metrics,
    preValidation,
    payments,
    guard,
    idempotencyKeyTtlMs = defaultIdempotencyKeyTtlMs,
  }: ExecuteRouteOptions,
) {
  /** The request's Idempotency-Key as its claim records it; undefined without one (a malformed one is refused, 400). */
  const keyOf = (req: IntentRequest, request: FastifyRequest): IdempotencyKeyClaim | undefined => {
    const key = readIdempotencyKey(request.headers['idempotency-key'])
    if (key === undefined) return undefined
    return {
      scope: idempotencyScope({ apiKeyId: request.apiKeyId, sender: req.intent.sender }),
      key,
      fingerprint: bodyFingerprint(request.body),
      expiresAt: new Date(Date.now() + idempotencyKeyTtlMs),
    }
  }
  const keys = new WeakMap<FastifyRequest, IdempotencyKeyClaim>()
  const schema = {
    operationId: 'executeIntent',
    tags: ['intents'],
    summary: 'Validate an intent, then execute it on-chain through the relayer',
    description:
      "A non-success validation is answered as validate would answer it, and nothing is sent. Then the relayer sends the intent (with `signature`, the signed entry point), simulated first as the chain will run it (the sending key, its fees and gas limit, the pending state), and waits for the receipt: 200 (0x11) when mined, the decoded code on a revert, 202 (0xF3) with Location when not mined in time (or at once once sent, with `Prefer: respond-async`). An intent hash has one outcome: a repeat of an intent this gateway sent answers that outcome with `replayed: true` (200 0x11 once mined, the revert's answer once reverted, 202 0xF3 while in flight; 503 0x40 claim-held with Retry-After when another request's claim has still sent nothing after up to 10 s), sending and charging nothing; 409 (0x22) is for another intent reusing a used sender and nonce. A paid execute is simulated after its payment's settlement (EVM: the two together, in that order, before settling; an execution that would revert after it is refused and nothing is charged); on Solana it is simulated again once the settlement is confirmed, and a refusal there answers its code with `payment.status: \"credited\"` (the settled payment stays this intent's credit). Too many on-chain reverts of a sender, client or target (a target's share counts one revert per sender, payer or client), or a spent gas budget: 429 (0xF6, problem types reverts-throttled and gas-budget-spent) with Retry-After; the relayer's spend budget (spend no payment covered) spent: 503 (0x40). Without a signature, a 401 (0xE5) body carries `signing`, the typed data to sign.",
    headers: {
      ...requestHeadersSchema,
      properties: {
        ...requestHeadersSchema.properties,
        // Read by the route (readIdempotencyKey), which names the header when it refuses it.
        'idempotency-key': {
          type: 'string',
          description:
            "1 to 255 printable ASCII characters (or the IETF draft's quoted form), kept IDEMPOTENCY_KEY_TTL_HOURS (24 h) per caller (API key, OAuth identity, else the intent's sender), recorded only by a request that claims the intent. A retry with the same key and body answers the first answer with `replayed: true` (while the first still runs and has sent nothing: up to 10 s of wait, then 503 0x40 claim-held with Retry-After); another body under the key: 422 (0xA8). Malformed: 400 naming the header.",
          examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
        },
        // Read by the route (readPreferences.ts); RFC 7240 asks that what is not understood be ignored.
        prefer: {
          type: 'string',
          description:
            'RFC 7240. `respond-async`: answered 202 (0xF3) with Location as soon as the node holds the transaction, not once mined (a refusal is still answered at once, as without it; an outcome already in the answer to the send, as Sui effects with their checkpoint are, is answered as without it); `wait=N`: at most N seconds of wait for the receipt, then 202 (under RECEIPT_TIMEOUT_MS only). The 202 either gives says `Preference-Applied`. Other preferences, or a `wait` that is not a number of seconds, are ignored.',
          examples: ['respond-async'],
        },
      },
    },
    body: intentSchema,
    response: outcomeResponses(intentStatuses),
    ...(preValidation ? { security: apiKeyRequired } : {}),
  }
  registerIntentRoute(app, {
    url: '/intents/execute',
    route: 'execute',
    schema,
    docs,
    registry,
    payments,
    metrics,
    preValidation,
    // Before any price: a repeat answers its outcome, and standing or budgets may refuse.
    // The Idempotency-Key first: a key that answers for another request is refused whatever else holds.
    early: async (req, request) => {
      const key = keyOf(req, request)
      if (key) keys.set(request, key)
      return (
        (key &&
          (await answerIdempotencyKey({
            journal,
            adapter: req.adapter,
            intentHash: req.intentHash,
            key,
            receiptTimeoutMs,
          }))) ??
        (await replayExecution({ adapter: req.adapter, journal, intentHash: req.intentHash })) ??
        (guard && (await refusal(guard, req, clientOf(request, claimedPayerOf(request, payments)), metrics)))
      )
    },
    // The execute itself, straight: claim, validate and simulate; settle the payment; then send, or give the claim back.
    run: async (req, ticket, request, receivedAt) => {
      const key = keys.get(request)
      const wait = readReceiptWait(request.headers.prefer, receiptTimeoutMs)
      const prepared = await prepareIntent({
        ...req,
        receivedAt,
        // A paid execute uses at most the gas its price covers.
        gasCap: ticket.payment === 'none' ? undefined : ticket.price?.maxGas,
        // Simulated after the payment's settlement, as the chain will run them, when it settles on this
        // very chain (another chain's settlement changes nothing here): a refusal there charges nothing.
        precededBy: ticket.price?.network === req.adapter.chainId ? ticket.settlement : undefined,
        onSettled:
          guard &&
          ((receipt) => {
            // Checked and recorded under the same client; a paid execute's spend is covered by its payment (never the chain's breaker).
            const subject = { ...subjectOf(req, clientOf(request, ticket.payer)), payer: ticket.payer }
            const paid = ticket.payment === 'paid' || ticket.payment === 'credit'
            void guard
              .record(subject, receipt, { paid })
              .catch((err: unknown) => app.log.warn({ err }, 'standing and budgets could not count an execution'))
            metrics?.recordRelayerSpend({
              chain: req.adapter.chainId,
              amount: Number(receipt.fee ?? 0n),
              outOfGas: receipt.outOfGas === true,
            })
          }),
        requireSignature: requireSignedIntents,
        // Sent only once its payment settled: a refusal then keeps the payment as the intent's credit.
        paid: ticket.payment === 'paid',
        // Its webhook endpoints get this execution's events.
        apiKeyId: request.apiKeyId,
        // The key is recorded by the claim, in its transaction, and only when the claim succeeds.
        journal: withIdempotencyKey(journal, key),
        receiptTimeoutMs,
        receiptWaitMs: wait.waitMs,
        preferenceApplied: wait.applied,
        onEnded: metrics && ((outcome) => metrics.recordExecution({ chain: req.adapter.chainId, outcome })),
        onReceipt: metrics && ((seconds) => metrics.recordReceiptWait({ chain: req.adapter.chainId, seconds })),
        onBackgroundError: (err, record) =>
          app.log.warn(
            { err, intentHash: record.intentHash, chainId: record.chainId },
            'could not watch a sent execution; the reconciler will settle it',
          ),
      }).catch((err: unknown) => {
        // Another request with the same key claimed first, for another body: nothing was claimed.
        if (key && err instanceof GatewayError && err.status === Status.IDEMPOTENCY_KEY_REUSED) {
          return {
            kind: 'reused' as const,
            outcome: idempotencyKeyReused(
              { intentHash: req.intentHash, chainId: req.adapter.chainId, chainType: req.adapter.chainType },
              (err as { recorded?: { expiresAt: Date } }).recorded ?? key,
            ),
          }
        }
        throw err
      })
      if (prepared.kind === 'reused') return prepared.outcome
      if (prepared.kind === 'answered') return prepared.outcome
      // x402: the payment is settled after the simulation and before the broadcast.
      const settled = await settleOrAbandon(ticket, prepared)
      if (settled) return settled
      // Simulated again now that the settlement is confirmed, where the runtime could not simulate it
      // with the execution (Solana), or where that simulation no longer holds (EVM: a call simulated
      // before it was not sent, or other executions were signed meanwhile): a refusal keeps the
      // settled payment as this intent's credit.
      if (ticket.payment === 'paid') {
        const refused = await prepared.recheck()
        if (refused) {
          app.log.info(
            { intentHash: req.intentHash, chainId: req.adapter.chainId, status: refused.status },
            "execute refused after its payment settled: the payment stays the intent's credit",
          )
          return { ...refused, payment: paymentCredited }
        }
      }
      return prepared.send()
    },
  })
}

/** The payer a request's PAYMENT-SIGNATURE names, on a gateway that takes payments (else nobody: the header means nothing there). */
function claimedPayerOf(request: FastifyRequest, payments: Payments | undefined): string | undefined {
  const header = paymentHeaderOf(request, payments)
  return header && payments?.claimedPayer(header)
}

/** Who is asking: its API key, else who pays, else its address (an IPv6 client by its /64), as the rate limit counts it. */
function clientOf(request: FastifyRequest, payer: string | undefined): string {
  if (request.apiKeyId !== undefined) return `key:${request.apiKeyId}`
  // Hex addresses are case-insensitive; a base58 key (Solana) is not.
  if (payer !== undefined) return `payer:${payer.startsWith('0x') ? payer.toLowerCase() : payer}`
  return `ip:${toClientAddressKey(request.ip)}`
}

function subjectOf(req: IntentRequest, client: string): GuardSubject {
  return {
    chainId: req.adapter.chainId,
    sender: req.intent.sender,
    target: req.intent.target,
    targets: req.intent.calls?.map((call) => call.target),
    client,
  }
}

async function refusal(
  guard: ExecutionGuard,
  req: IntentRequest,
  client: string,
  metrics: Metrics | undefined,
): Promise<IntentOutcome | undefined> {
  const refused = await guard.check(subjectOf(req, client))
  if (!refused) return undefined
  metrics?.recordGuardRefusal({ chain: req.adapter.chainId, reason: refused.reason })
  const { status, detail, problemType, retryAfterSeconds } = refused
  return {
    status,
    intentHash: req.intentHash,
    chainId: req.adapter.chainId,
    chainType: req.adapter.chainType,
    detail,
    problemType,
    retryAfterSeconds,
  }
}

/** Settles the payment of a prepared execute; when it does not settle, nothing is sent and the claim goes back: its answer. Undefined: send. */
async function settleOrAbandon(
  ticket: PaymentTicket,
  prepared: PreparedIntent & { kind: 'ready' },
): Promise<IntentOutcome | undefined> {
  let settled: Awaited<ReturnType<PaymentTicket['settle']>>
  try {
    settled = await ticket.settle()
  } catch (err) {
    await prepared.abandon(Status.GATEWAY_FAILURE, 'the payment could not be settled')
    throw err
  }
  if (settled.ok) return undefined
  // x402 settlement_pending: sent once the settlement confirms (202 0xF3, never 402).
  if (settled.pending) return prepared.abandon(Status.SUBMITTED, settled.message)
  return prepared.abandon(Status.FUNDS_REQUESTED, `the payment could not be settled: ${settled.reason}`)
}
