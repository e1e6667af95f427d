// A place in the journal's change feed: its own file, so that the journal and the webhook outbox
// (which keeps the feed's place) both name it without importing each other.
/**
 * A place in the journal's change feed (Journal.changesAfter), ordered as (change, id): SQLite's
 * change counter (its writes are serialized), or PostgreSQL's transaction id of the change (every
 * transaction below the oldest one still running has ended, so nothing can commit before it later).
 */
export type ChangePosition = { change: number; id: number }
