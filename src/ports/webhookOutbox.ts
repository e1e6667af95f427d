// The webhook outbox's operations, in the journal's store (SQLite beside the executions, or the
// shared PostgreSQL database). An event is written once per endpoint (its id and the endpoint are
// the key), leased to one deliverer at a time, and kept until delivered or given up: so it is
// delivered at least once across crashes, and by one instance of a fleet at a time.

export type OutboxEntry = { eventId: string; endpoint: string; payload: string }

export type LeasedEntry = OutboxEntry & { attempts: number }

export type WebhookOutbox = {
  /** Adds what is not there yet (an event already written for an endpoint is left as it is). */
  enqueue(entries: readonly OutboxEntry[]): Promise<void>
  /** Entries due now, leased to the caller for `lockMs` (nobody else gets them meanwhile). */
  lease(limit: number, lockMs: number): Promise<LeasedEntry[]>
  delivered(entry: OutboxEntry): Promise<void>
  /** A failed attempt: tried again at `nextAt` (ms), or never again when `nextAt` is undefined (given up). */
  failed(entry: OutboxEntry, nextAt: number | undefined, error: string): Promise<void>
  /** Up to where (journal `updated_at`, ms) executions have been turned into events. */
  cursor(): Promise<number | undefined>
  advance(to: number): Promise<void>
  /** The entries of one event (tests and operators): delivered or not, attempts, last error. */
  entriesOf(eventId: string): Promise<Array<{ endpoint: string; attempts: number; delivered: boolean; lastError: string | undefined }>>
}
