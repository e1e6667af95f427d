// A journal file as the first gateway wrote it (schema version 1, user_version 0): its DDL copied
// verbatim, so that tests can open such a file with the current code and see it upgraded.
import Database from 'better-sqlite3'

const v1Schema = `
CREATE TABLE IF NOT EXISTS executions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  chain_id TEXT NOT NULL,
  intent_hash TEXT NOT NULL,
  sender TEXT NOT NULL,
  intent_nonce TEXT NOT NULL,
  intent TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('claimed', 'pending', 'mined', 'reverted', 'dropped')),
  status INTEGER NOT NULL,
  relayer TEXT,
  tx_nonce INTEGER,
  transaction_hash TEXT,
  raw_transaction TEXT,
  block_number TEXT,
  gas_used TEXT,
  return_data TEXT,
  detail TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS executions_intent_holder ON executions (chain_id, intent_hash) WHERE state IN ('claimed', 'pending', 'mined');
CREATE UNIQUE INDEX IF NOT EXISTS executions_nonce_holder ON executions (chain_id, sender, intent_nonce) WHERE state IN ('claimed', 'pending', 'mined');
CREATE INDEX IF NOT EXISTS executions_by_hash ON executions (intent_hash, id);
CREATE INDEX IF NOT EXISTS executions_pending ON executions (chain_id, relayer, tx_nonce) WHERE state = 'pending';
`

export type V1Row = {
  id?: number
  chain_id: string
  intent_hash: string
  sender: string
  intent_nonce: string
  /** The intent as JSON, bigints as decimal strings (as the first gateway serialized it). */
  intent: string
  state: 'claimed' | 'pending' | 'mined' | 'reverted' | 'dropped'
  status: number
  relayer?: string | null
  tx_nonce?: number | null
  transaction_hash?: string | null
  raw_transaction?: string | null
  block_number?: string | null
  gas_used?: string | null
  return_data?: string | null
  detail?: string | null
  created_at: number
  updated_at: number
}

const columns = [
  'id',
  'chain_id',
  'intent_hash',
  'sender',
  'intent_nonce',
  'intent',
  'state',
  'status',
  'relayer',
  'tx_nonce',
  'transaction_hash',
  'raw_transaction',
  'block_number',
  'gas_used',
  'return_data',
  'detail',
  'created_at',
  'updated_at',
] as const

/** Writes a version-1 journal at `path` holding `rows`, then `deleteIds` removed (as released claims were), in WAL mode as the gateway kept it. */
export function writeV1Journal(path: string, rows: V1Row[], { deleteIds = [] }: { deleteIds?: number[] } = {}): void {
  const db = new Database(path)
  try {
    db.pragma('journal_mode = WAL')
    db.exec(v1Schema)
    const insert = db.prepare(
      `INSERT INTO executions (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    )
    for (const row of rows)
      insert.run(Object.fromEntries(columns.map((c) => [c, (row as Record<string, unknown>)[c] ?? null])))
    for (const id of deleteIds) db.prepare('DELETE FROM executions WHERE id = ?').run(id)
  } finally {
    db.close()
  }
}
