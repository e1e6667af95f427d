// What an execute with an Idempotency-Key is owed before anything else (before the intent-hash
// replay, standing, budgets and any price): nothing when the caller has not recorded the key (the
// request goes on, and its claim records it); 422 0xA8 when the key answers for another request
// (another body, or the same body for another chain); and for the same request, its first answer:
// the intent's outcome (the intent-hash rule, contract §15), or 202 0xF3 with Location while the
// first request still runs (claimed, nothing signed yet). Sent free: nothing is reserved, charged
// or sent, and an x402 client's retry is never offered a price again for a request that ran.

import type { Hex } from 'viem'
import { replayExecution } from '../intents/replayExecution.ts'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { IntentOutcome } from '../ports/intentOutcome.ts'
import type { IdempotencyKeyClaim, Journal } from '../ports/journal.ts'
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
}

export async function answerIdempotencyKey({
  journal,
  adapter,
  intentHash,
  key,
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
  const replayed = await replayExecution({ adapter, journal, intentHash })
  if (replayed) return replayed
  const record = await journal.get(intentHash, chainId)
  if (record?.state === 'claimed' && record.updatedAt.getTime() > Date.now() - runningClaimMs) {
    return {
      status: Status.SUBMITTED,
      intentHash,
      chainId,
      chainType,
      detail:
        'the first request with this Idempotency-Key is still running (replayed: nothing was sent or charged again); poll the Location for its state',
      replayed: true,
    }
  }
  // Its attempt sent nothing that holds (given back, or dropped): the request goes on, under the same key.
  return undefined
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
