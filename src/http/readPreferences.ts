// RFC 7240 `Prefer` on execute: how long the request waits for its transaction's receipt.
import parsePreferHeader from 'parse-prefer-header'

export type ReceiptWait = {
  /** How long to wait for the receipt once the transaction is sent, ms (0: answer once sent). */
  waitMs: number
  /** What to say in `Preference-Applied` when the answer is the 202 this wait gives; undefined: nothing asked. */
  applied: string | undefined
}

/** The longest `wait` read, in seconds: past it the number is not a wait anybody means (and past 2^53 not exact). */
const maxWaitSeconds = 86_400

/**
 * `respond-async` answers 202 (0xF3, with Location) as soon as the node has the transaction;
 * `wait=N` waits at most N seconds for the receipt (RECEIPT_TIMEOUT_MS stays the bound: a longer
 * wait is not applied); both: wait N seconds, then answer 202. Without either, the wait is RECEIPT_TIMEOUT_MS. As RFC 7240 §2 asks, a
 * preference not understood (another token, `wait` that is not a number of seconds) is ignored,
 * never refused.
 */
export function readReceiptWait(header: string | string[] | undefined, receiptTimeoutMs: number): ReceiptWait {
  if (header === undefined) return { waitMs: receiptTimeoutMs, applied: undefined }
  const preferences = parsePreferHeader(header)
  const async = preferences.respondAsync !== undefined
  const waitText = preferences.wait
  const seconds = typeof waitText === 'string' && /^\d{1,6}$/.test(waitText) ? Number(waitText) : undefined
  const wait = seconds !== undefined && seconds <= maxWaitSeconds ? seconds : undefined
  // A wait at or past the gateway's own bound changes nothing: the bound answers, not the preference.
  if (wait !== undefined && wait * 1000 < receiptTimeoutMs)
    return { waitMs: wait * 1000, applied: async ? `respond-async, wait=${wait}` : `wait=${wait}` }
  return async ? { waitMs: 0, applied: 'respond-async' } : { waitMs: receiptTimeoutMs, applied: undefined }
}
