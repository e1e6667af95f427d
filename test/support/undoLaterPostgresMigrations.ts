// Tests that rebuild an older PostgreSQL journal (drop what later migrations added, delete their
// rows in journal_migrations) must also undo the migrations after the one they test: each one's
// undo, newest first. A new migration adds its undo here, or those tests find its table already
// there when the upgrade runs it again.
import type pg from 'pg'

const undo: Record<number, string> = {
  8: 'DROP TABLE IF EXISTS idempotency_keys',
  9: 'DROP TABLE IF EXISTS ops_audit',
  10: 'ALTER TABLE relayer_leases DROP COLUMN IF EXISTS epoch',
}

/** Undoes migrations 8 and later (down to `from`), newest first. */
export async function undoLaterPostgresMigrations(admin: pg.Client, from = 8): Promise<void> {
  for (const version of Object.keys(undo)
    .map(Number)
    .sort((a, b) => b - a)) {
    if (version >= from) await admin.query(undo[version]!)
  }
}
