// The Idempotency-Key request header (POST /intents/execute): 1 to 255 printable ASCII characters,
// as payment APIs take it (Stripe, Circle, CDP). The IETF draft's Structured Field form, a quoted
// string (`"8e03978e"`), is taken too and means its content, so a client library of either kind
// names the same key. Anything else is refused, naming the header: a key the gateway would
// quietly ignore would leave its client believing its retries are safe.
import { InputError } from '../errors/inputError.ts'

/** The longest key taken, in characters. */
export const maxIdempotencyKeyLength = 255

const printable = /^[\x20-\x7e]+$/

/** The key the header names; undefined without the header; an InputError (400, naming `Idempotency-Key`) when it is malformed. */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (Array.isArray(header)) throw refused('must be sent once')
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(header)
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : header
  if (key.length === 0) throw refused('must not be empty')
  if (key.length > maxIdempotencyKeyLength) throw refused(`must be at most ${maxIdempotencyKeyLength} characters (it has ${key.length})`)
  if (!printable.test(key)) throw refused('must be printable ASCII characters (from space to ~)')
  return key
}

function refused(message: string): InputError {
  return new InputError('The Idempotency-Key header is not valid', { errors: [{ field: 'Idempotency-Key', message }] })
}
