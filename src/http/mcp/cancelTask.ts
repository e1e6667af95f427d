// tasks/cancel of an execution (its task id the intent hash), for the identity that created it:
// the API key's short id or `oauth:<iss>#<sub>`, as the journal kept it with the claim. Only a
// claim that has signed nothing yet is cancellable; it is withdrawn from the journal as if never
// made (no outcome recorded: the intent, its nonce unused, may run later; a payment that settled
// for it stays its credit, §10). The race with the request that holds the claim is settled by the
// journal: withdraw deletes the record only while it is still `claimed`, and recordSigned updates
// it only while it exists, so exactly one of them wins; a send that loses finds no record to sign
// for and broadcasts nothing (the relayer closes the nonce it took).
import type { Hex } from 'viem'
import type { ExecutionRecord, Journal, JournalState } from '../../ports/journal.ts'

export type CancelTaskParameters = {
  journal: Pick<Journal, 'get' | 'withdraw'>
  intentHash: Hex
  /** Who asks: the /mcp request's identity (undefined without a credential). */
  caller: string | undefined
}

export type CancelTaskResult =
  | { ok: true; record: ExecutionRecord }
  | { ok: false; reason: 'unknown' | 'keyless' | 'not-creator' | 'not-cancellable'; state?: JournalState | undefined }

export async function cancelTask({ journal, intentHash, caller }: CancelTaskParameters): Promise<CancelTaskResult> {
  const record = await journal.get(intentHash)
  if (!record) return { ok: false, reason: 'unknown' }
  // Nobody can prove they made a task made without a credential: nobody may cancel it.
  if (record.apiKeyId === undefined) return { ok: false, reason: 'keyless' }
  if (caller === undefined || caller !== record.apiKeyId) return { ok: false, reason: 'not-creator' }
  if (record.state !== 'claimed') return { ok: false, reason: 'not-cancellable', state: record.state }
  if (await journal.withdraw(record)) return { ok: true, record }
  // Signed (or given back) between the read and the withdrawal: what it is now.
  const now = await journal.get(intentHash)
  return now ? { ok: false, reason: 'not-cancellable', state: now.state } : { ok: false, reason: 'unknown' }
}
