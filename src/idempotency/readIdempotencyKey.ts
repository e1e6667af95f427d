// The Idempotency-Key request header (POST /intents/execute): 1 to 255 printable ASCII characters,
// as payment APIs take it (Stripe, Circle, CDP), or the IETF draft's quoted form (its content), so
// a client library of either kind names the same key. Anything else is refused, naming the header:
// a key the gateway quietly ignored would leave its client believing its retries are safe.
import { InputError } from '../errors/inputError.ts'
import { idempotencyKeyProblem, unquoted } from './idempotencyKeyProblem.ts'

/** The key the header names; undefined without the header; an InputError (400, naming `Idempotency-Key`) when it is malformed. */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (Array.isArray(header)) throw refused('must be sent once')
  const problem = idempotencyKeyProblem(header)
  if (problem !== undefined) throw refused(problem)
  return unquoted(header)
}

function refused(message: string): InputError {
  return new InputError('The Idempotency-Key header is not valid', { errors: [{ field: 'Idempotency-Key', message }] })
}
