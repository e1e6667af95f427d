// The idempotency_keys table's rows, as both journals read them (docs/journal.md, SQLite schema 6,
// PostgreSQL schema 8), and the one rule of whether a recorded key answers a claim.
import type { Hex } from 'viem'
import type { IdempotencyKeyClaim, IdempotencyKeyRecord } from '../ports/journal.ts'

export type IdempotencyKeyRow = {
  scope: string
  idem_key: string
  fingerprint: string
  chain_id: string
  intent_hash: string
  execution_id: number
  created_at: number
  expires_at: number
}

export function fromIdempotencyKeyRow(row: IdempotencyKeyRow): IdempotencyKeyRecord {
  return {
    scope: row.scope,
    key: row.idem_key,
    fingerprint: row.fingerprint,
    chainId: row.chain_id,
    intentHash: row.intent_hash as Hex,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  }
}

/** Whether a recorded key is this request's: the same body (fingerprint), for the same intent on the same chain (the chain may come from a header, which the fingerprint leaves out). */
export function isSameRequest(
  recorded: IdempotencyKeyRecord,
  key: IdempotencyKeyClaim,
  chainId: string,
  intentHash: Hex,
): boolean {
  return (
    recorded.fingerprint === key.fingerprint &&
    recorded.chainId === chainId &&
    recorded.intentHash.toLowerCase() === intentHash.toLowerCase()
  )
}
