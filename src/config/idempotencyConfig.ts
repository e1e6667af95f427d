// How long an Idempotency-Key of POST /intents/execute is kept (IDEMPOTENCY_KEY_TTL_HOURS, default
// 24, as the payment APIs an integrator knows keep theirs): a retry within it is answered the first
// answer, another body under it is refused (422 0xA8); after it, the key is free again and
// retention prunes it. Reads its own variable and reports its own problems.
import { readInteger } from './readInteger.ts'

export type IdempotencyConfig = {
  /** How long a recorded key is kept, in milliseconds. */
  keyTtlMs: number
}

/** 24 hours. */
export const defaultIdempotencyKeyTtlMs = 86_400_000

export function idempotencyConfig(env: Record<string, string | undefined>): {
  value: IdempotencyConfig
  problems: string[]
} {
  const problems: string[] = []
  // At most 30 days: a key is a retry's, not a ledger's.
  const hours = readInteger(env, 'IDEMPOTENCY_KEY_TTL_HOURS', { min: 1, max: 720, fallback: 24 }, problems) ?? 24
  return { value: { keyTtlMs: hours * 3_600_000 }, problems }
}
