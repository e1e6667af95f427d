// Tests that rebuild an older PostgreSQL journal (drop what later migrations added, delete their
// rows in journal_migrations) must also undo the migrations after the one they test: each one's
// undo, newest first. A new migration adds its undo here, or those tests find its table already
// there when the upgrade runs it again.
import type pg from 'pg'

const undo: Record<number, string> = {
  8: 'DROP TABLE IF EXISTS idempotency_keys',
  9: 'DROP TABLE IF EXISTS ops_audit',
  10: 'ALTER TABLE relayer_leases DROP COLUMN IF EXISTS epoch',
  11: `DROP INDEX IF EXISTS x402_payments_unfinal;
ALTER TABLE IF EXISTS x402_payments DROP COLUMN IF EXISTS settlement_block_number, DROP COLUMN IF EXISTS settlement_block_hash,
  DROP COLUMN IF EXISTS settlement_final, DROP COLUMN IF EXISTS settlement_payload, DROP CONSTRAINT IF EXISTS x402_payments_state_check;
ALTER TABLE IF EXISTS x402_payments ADD CONSTRAINT x402_payments_state_check CHECK (state IN ('reserved', 'settled', 'consumed', 'released'))`,
  12: 'DROP INDEX IF EXISTS executions_instance',
}

/** Undoes migrations 8 and later (down to `from`), newest first. */
export async function undoLaterPostgresMigrations(admin: pg.Client, from = 8): Promise<void> {
  for (const version of Object.keys(undo)
    .map(Number)
    .sort((a, b) => b - a)) {
    if (version >= from) await admin.query(undo[version]!)
  }
}
