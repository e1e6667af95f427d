// Journal schema 7 (SQLite): the console's switches, an append-only audit (who, when, what) from
// which the switches' state is read (ops/opsSwitchStore.ts).
import type Database from 'better-sqlite3'

export function opsAuditDdl(db: Database.Database): void {
  db.exec(`
CREATE TABLE ops_audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'drain', 'undrain', 'retry')),
  target TEXT NOT NULL,
  detail TEXT
);
`)
}
