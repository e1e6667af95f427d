// What is wrong with an Idempotency-Key, as words for whoever names where it came from: the HTTP
// header (readIdempotencyKey), or MCP's `_meta["intent-gateway/idempotency-key"]`. Keys are 1 to 255
// printable ASCII characters; the IETF draft's Structured Field form, a quoted string, means its
// content. Undefined: a key.

/** The longest key taken, in characters. */
export const maxIdempotencyKeyLength = 255

const printable = /^[\x20-\x7e]+$/

/** The problem with a key as sent (a header's value, or a value from MCP), or undefined when it is one. */
export function idempotencyKeyProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string'
  const key = unquoted(value)
  if (key.length === 0) return 'must not be empty'
  if (key.length > maxIdempotencyKeyLength)
    return `must be at most ${maxIdempotencyKeyLength} characters (it has ${key.length})`
  if (!printable.test(key)) return 'must be printable ASCII characters (from space to ~)'
  return undefined
}

/** The key a value names: the content of the draft's quoted form, else the value itself. */
export function unquoted(value: string): string {
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(value)
  return quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : value
}
