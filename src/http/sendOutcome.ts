// Turns a domain outcome into the HTTP response: status from the ERC-1066 table, body as JSON
// (or problem details from 400 on), Location while an execution is unconfirmed, x402 on 402.
import { encodePaymentRequiredHeader } from '@x402/core/http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FundingShortfall } from '../ports/fundingShortfall.ts'
import type { IntentOutcome } from '../ports/intentOutcome.ts'
import { getStatusCode, Status } from '../status/statusCodes.ts'
import { toProblemDetails } from './problemDetails.ts'

/** What the intent routes add: who funds the intent (for a 402 0x54) and when it becomes valid (for a 0x20). */
export type PaymentContext = {
  sender: string
  executor: string
  validAfter?: bigint | undefined
  /** Read from the chain on a 0x54: what is short, the deposit or a policy cap. */
  funding?: FundingShortfall | undefined
}

/**
 * The longest Retry-After the gateway promises: one day. An intent's validAfter can be years
 * away (any uint64), and a client or queue that sleeps for what Retry-After says would hold a
 * job, a connection or a lease for decades on one answer; a day is past any operational wait
 * (a rate-limit window, an outage), so a client that asks again after it loses at most one
 * request a day and learns the remaining wait then.
 */
const maxRetryAfterSeconds = 86_400

export function sendOutcome(
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: IntentOutcome,
  payment?: PaymentContext,
  extra: Record<string, unknown> = {},
) {
  const entry = getStatusCode(outcome.status)
  request.gateway = {
    chainId: outcome.chainId,
    chainType: outcome.chainType ?? '',
    intentHash: outcome.intentHash,
    status: outcome.status,
  }
  const execution = outcome.execution
    ? {
        state: outcome.execution.state,
        transactionHash: outcome.execution.transactionHash,
        blockNumber: outcome.execution.blockNumber?.toString(),
        gasUsed: outcome.execution.gasUsed?.toString(),
        returnData: outcome.execution.returnData,
        ...(outcome.execution.final !== undefined ? { final: outcome.execution.final } : {}),
        ...(outcome.execution.confirmationsRequired !== undefined
          ? { confirmationsRequired: outcome.execution.confirmationsRequired }
          : {}),
      }
    : {}
  const fields = {
    statusName: entry.statusName,
    description: entry.description,
    ...(outcome.detail ? { detail: outcome.detail } : {}),
    intentHash: outcome.intentHash,
    chainType: outcome.chainType ?? '',
    chainId: outcome.chainId,
    ...execution,
    ...(outcome.signing ? { signing: outcome.signing } : {}),
    ...(outcome.replayed ? { replayed: true } : {}),
    ...(outcome.payment ? { payment: outcome.payment } : {}),
    ...extra,
  }

  if (outcome.retryAfterSeconds !== undefined)
    reply.header(
      'retry-after',
      String(Math.min(maxRetryAfterSeconds, Math.max(1, Math.ceil(outcome.retryAfterSeconds)))),
    )
  if (outcome.status === Status.SUBMITTED) reply.header('location', `/intents/${outcome.intentHash}`)
  if (outcome.preferenceApplied) reply.header('preference-applied', outcome.preferenceApplied)
  // Too early because of the intent's own bound: the seconds until validAfter, at most a day.
  const wait =
    outcome.status === Status.TOO_EARLY && payment?.validAfter
      ? payment.validAfter - BigInt(Math.floor(Date.now() / 1000))
      : 0n
  if (wait > 0n)
    reply.header('retry-after', (wait < BigInt(maxRetryAfterSeconds) ? wait : BigInt(maxRetryAfterSeconds)).toString())
  reply.code(entry.httpStatus)

  if (entry.httpStatus < 400) {
    return reply.type('application/json').send({ status: entry.hex, erc1066Status: entry.hex, ...fields })
  }

  const problem = {
    ...toProblemDetails({
      httpStatus: entry.httpStatus,
      status: outcome.status,
      title: entry.description,
      detail: outcome.detail,
      context: request.gateway,
    }),
    ...(outcome.problemType ? { type: outcome.problemType } : {}),
    ...(outcome.errors ? { errors: outcome.errors } : {}),
    ...execution,
    ...(outcome.signing ? { signing: outcome.signing } : {}),
    ...(outcome.replayed ? { replayed: true } : {}),
    ...(outcome.payment ? { payment: outcome.payment } : {}),
    ...extra,
  }
  if (entry.httpStatus === 402) {
    const paymentRequired = {
      x402Version: 2,
      error: outcome.detail ?? entry.description,
      resource: {
        url: request.url,
        description: `${request.method} ${request.url} for intent ${outcome.intentHash}`,
        mimeType: 'application/json',
      },
      // No automated payment scheme is offered yet: funds reach an intent through a deposit.
      accepts: [],
      extensions: payment ? { deposit: depositExtension(outcome.chainId, payment) } : {},
    }
    reply.header('payment-required', encodePaymentRequiredHeader(paymentRequired))
    return reply.type('application/problem+json').send({ ...problem, paymentRequired })
  }
  return reply.type('application/problem+json').send(problem)
}

/**
 * extensions.deposit of the chain's 0x54: no x402 payment fixes it (accepts is empty). A short
 * deposit names the shortfall and the function that funds it; a policy cap says that no deposit helps.
 */
function depositExtension(chainId: string, { sender, executor, funding }: PaymentContext) {
  if (funding?.limit === 'policy') return { chainId, sender, limit: 'policy', detail: funding.detail, cap: funding.cap }
  // Account mode pays from the account's own ETH: funding the account fixes it, not the executor.
  if (funding?.limit === 'balance')
    return {
      chainId,
      sender,
      limit: 'balance',
      detail: funding.detail,
      amount: funding.amount,
      balance: funding.balance,
    }
  return {
    chainId,
    sender,
    executor,
    function: 'depositFor(address)',
    ...(funding ? { limit: 'deposit', detail: funding.detail, amount: funding.amount, deposit: funding.deposit } : {}),
  }
}
