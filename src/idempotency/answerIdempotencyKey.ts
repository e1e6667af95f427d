// What an execute with an Idempotency-Key is owed before anything else (before the intent-hash
// replay, standing, budgets and any price): nothing when the caller has not recorded the key (the
// request goes on, and its claim records it); 422 0xA8 when the key answers for another request
// (another body, or the same body for another chain); and for the same request, its first answer:
// the intent's outcome (the intent-hash rule, contract §15), waiting up to claimWaitMs for a first
// request that still runs (claimed, nothing signed yet) to send or give its claim back, and 503
// claim-held to retry if it has done neither. Sent free: nothing is reserved, charged or sent, and
// an x402 client's retry is never offered a price again for a request that ran.

import type { Hex } from 'viem'
import { afterClaim, claimHeld, replayExecution } from '../intents/replayExecution.ts'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { IntentOutcome } from '../ports/intentOutcome.ts'
import type { ExecutionRecord, IdempotencyKeyClaim, Journal } from '../ports/journal.ts'
import { Status } from '../status/statusCodes.ts'

export const idempotencyKeyReusedType = 'urn:intent-gateway:problem:idempotency-key-reused'

/**
 * A claim this old that signed nothing is one a gateway that died may have left: the request goes
 * on, and its own claim takes it over (PostgreSQL's default stale-claim time). A live claim is
 * seconds old, a minute while a settlement confirms.
 */
const runningClaimMs = 120_000

export type AnswerIdempotencyKeyParameters = {
  journal: Journal
  adapter: ChainAdapter
  intentHash: Hex
  key: IdempotencyKeyClaim
  /** The execute's receipt timeout: a wait for the first request's claim is never longer. */
  receiptTimeoutMs: number
}

export async function answerIdempotencyKey({
  journal,
  adapter,
  intentHash,
  key,
  receiptTimeoutMs,
}: AnswerIdempotencyKeyParameters): Promise<IntentOutcome | undefined> {
  const recorded = await journal.idempotencyKey(key.scope, key.key)
  if (!recorded) return undefined
  const { chainId, chainType } = adapter
  if (
    recorded.fingerprint !== key.fingerprint ||
    recorded.chainId !== chainId ||
    recorded.intentHash.toLowerCase() !== intentHash.toLowerCase()
  ) {
    return idempotencyKeyReused({ intentHash, chainId, chainType }, recorded)
  }
  // The first request still runs (claimed, nothing signed): its outcome once it sends, the request
  // itself once it gives the claim back (refused, say), or 503 claim-held to retry after the wait.
  const running = (record: ExecutionRecord) => record.updatedAt.getTime() > Date.now() - runningClaimMs
  const record = await afterClaim(journal, intentHash, chainId, receiptTimeoutMs, running)
  if (record?.state === 'claimed' && running(record)) return claimHeld(intentHash, adapter)
  // Its attempt sent something that holds: its outcome. Sent nothing that holds (given back, or
  // dropped): the request goes on, under the same key.
  return replayExecution({ adapter, journal, intentHash })
}

/** 422 0xA8: the key answers for another request; nothing is done. */
export function idempotencyKeyReused(
  at: Pick<IntentOutcome, 'intentHash' | 'chainId' | 'chainType'>,
  recorded: { expiresAt: Date },
): IntentOutcome {
  return {
    ...at,
    status: Status.IDEMPOTENCY_KEY_REUSED,
    problemType: idempotencyKeyReusedType,
    detail: `this Idempotency-Key was used with another request body (or for another chain) and is kept until ${recorded.expiresAt.toISOString()}: nothing was done; a new request needs a new key`,
  }
}
