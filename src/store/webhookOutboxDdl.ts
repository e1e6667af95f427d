// The webhook outbox's tables, the same DDL on SQLite and PostgreSQL (both backends create them with their journal).

export const outboxDdl = `
CREATE TABLE IF NOT EXISTS webhook_outbox (
  event_id TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  payload TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at BIGINT NOT NULL,
  locked_until BIGINT NOT NULL DEFAULT 0,
  delivered_at BIGINT,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (event_id, endpoint)
);
CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (next_at) WHERE delivered_at IS NULL;
CREATE TABLE IF NOT EXISTS webhook_cursor (id INTEGER PRIMARY KEY CHECK (id = 1), scanned_to BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS executions_updated ON executions (updated_at);
`

/** Never again: a given-up entry's next time. */
export const never = Number.MAX_SAFE_INTEGER
