// The webhook outbox's operations, in the journal's store (SQLite beside the executions, or the
// shared PostgreSQL database). An event is written once per endpoint (its id and the endpoint are
// the key), leased to one deliverer at a time, and kept until delivered or given up: so it is
// delivered at least once across crashes, and by one instance of a fleet at a time.
import type { ChangePosition } from './changePosition.ts'

export type OutboxEntry = { eventId: string; endpoint: string; payload: string }

export type LeasedEntry = OutboxEntry & { attempts: number }

export type WebhookOutbox = {
  /** Adds what is not there yet (an event already written for an endpoint is left as it is). */
  enqueue(entries: readonly OutboxEntry[]): Promise<void>
  /**
   * Up to `limit` entries due now for one endpoint, oldest first, leased to the caller for `lockMs`
   * (nobody else gets them meanwhile): each endpoint is leased apart, so one with a backlog of
   * retries never takes another's turn.
   */
  lease(endpoint: string, limit: number, lockMs: number): Promise<LeasedEntry[]>
  /** Entries due now for endpoints other than `endpoints` (taken out of the settings since they were queued), leased as `lease` does. */
  leaseOthers(endpoints: readonly string[], limit: number, lockMs: number): Promise<LeasedEntry[]>
  /** Gives a leased entry back untried (the dispatcher is stopping): due again at once, no attempt counted. */
  release(entry: OutboxEntry): Promise<void>
  delivered(entry: OutboxEntry): Promise<void>
  /** A failed attempt: tried again at `nextAt` (ms), or never again when `nextAt` is undefined (given up). */
  failed(entry: OutboxEntry, nextAt: number | undefined, error: string): Promise<void>
  /** Up to where in the journal's change feed executions have been turned into events. */
  position(): Promise<ChangePosition | undefined>
  /** Moves the position forward (never back: another instance of a fleet may be further). */
  advance(to: ChangePosition): Promise<void>
  /** Up to where (journal `updated_at`, ms) a gateway before the change feed scanned: where the feed starts after an upgrade. */
  cursor(): Promise<number | undefined>
  /** The entries of one event (tests and operators): delivered or not, attempts, last error. */
  entriesOf(
    eventId: string,
  ): Promise<Array<{ endpoint: string; attempts: number; delivered: boolean; lastError: string | undefined }>>
}
