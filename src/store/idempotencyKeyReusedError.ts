// A claim whose Idempotency-Key its caller already recorded for another request: thrown by both
// journals' claim, inside the claim's transaction, so that nothing is claimed (the route checks
// the key first and answers this as a value; this is the race of two requests with one key).
import { GatewayError } from '../errors/gatewayError.ts'
import type { IdempotencyKeyRecord } from '../ports/journal.ts'
import { Status } from '../status/statusCodes.ts'

export class IdempotencyKeyReusedError extends GatewayError {
  override name = 'IdempotencyKeyReusedError'
  readonly recorded: IdempotencyKeyRecord

  constructor(recorded: IdempotencyKeyRecord) {
    super('The Idempotency-Key was already used with another request body', {
      code: 'IDEMPOTENCY_KEY_REUSED',
      status: Status.IDEMPOTENCY_KEY_REUSED,
      // Not which intent it answers for: under a sender's scope, anyone may send the sender's address.
      details: `it answers for another request until ${recorded.expiresAt.toISOString()}; a new request needs a new key`,
    })
    this.recorded = recorded
  }
}
