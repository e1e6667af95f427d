// What "the same request" means for an Idempotency-Key: the SHA-256 of the body's RFC 8785
// canonical JSON. Headers are left out (a retry may carry another payment or request id), and two
// bodies that differ only in key order, spacing or number spelling are the same body.
import { createHash } from 'node:crypto'
import { canonicalJson } from './canonicalJson.ts'

/** Hex SHA-256 of the body's canonical JSON (the body as parsed from JSON). */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex')
}
