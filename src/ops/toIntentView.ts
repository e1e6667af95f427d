// One execution as the console shows it: state, age, chain, key, nonce, transaction. Everything
// here is data (the page sets it as text); the detail may be attacker-written (a revert reason).
import type { ExecutionRecord } from '../ports/journal.ts'

export type IntentView = {
  chainId: string
  intentHash: string
  attempt: number
  state: string
  status: string
  ageSeconds: number
  updatedAt: string
  relayer: string | undefined
  nonce: string | undefined
  transaction: string | undefined
  blockNumber: string | undefined
  final: boolean
  stuck: boolean
  detail: string | undefined
}

export function toIntentView(
  record: ExecutionRecord,
  { now, stuckAfterMs }: { now: number; stuckAfterMs: number },
): IntentView {
  const age = now - record.createdAt.getTime()
  const live = record.state === 'claimed' || record.state === 'pending'
  const nonce = record.transaction?.details?.txNonce
  return {
    chainId: record.chainId,
    intentHash: record.intentHash,
    attempt: record.attempt,
    state: record.state,
    status: `0x${record.status.toString(16).padStart(2, '0')}`,
    ageSeconds: Math.max(0, Math.round(age / 1000)),
    updatedAt: record.updatedAt.toISOString(),
    relayer: record.transaction?.relayer,
    nonce: nonce === undefined || nonce === null ? undefined : String(nonce),
    transaction: record.transaction?.id,
    blockNumber: record.blockNumber?.toString(),
    final: record.final,
    stuck: live && age > stuckAfterMs,
    // Bounded: a revert's return data can be long.
    detail: record.detail?.slice(0, 300),
  }
}
