// The journal as one execute sees it: its claims carry the request's Idempotency-Key, so that the
// key is recorded by the claim itself (in its transaction) and by nothing else. The execute's
// domain code (intents/executeIntent.ts) claims as it always does.
import type { IdempotencyKeyClaim, Journal } from '../ports/journal.ts'

export function withIdempotencyKey(journal: Journal, idempotencyKey: IdempotencyKeyClaim | undefined): Journal {
  if (!idempotencyKey) return journal
  return { ...journal, claim: (params) => journal.claim({ ...params, idempotencyKey }) }
}
