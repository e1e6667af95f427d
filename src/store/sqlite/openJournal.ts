// The execution journal on SQLite: every execute this gateway attempts, in a file that outlives the
// process, on every runtime alike (a signed transaction is an id, bytes and the runtime's details). A record is claimed before preflight (one holder per intent and per (sender, nonce)),
// written durably with its signed transaction before that transaction is broadcast, and settled
// from the chain. After a crash, the records still `pending` are what the reconciler finishes.

import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { Hex } from 'viem'
import { ClaimWithdrawnError } from '../../errors/claimWithdrawnError.ts'
import { ConfigError } from '../../errors/configError.ts'
import type { SignedExecution } from '../../ports/chainAdapter.ts'
import type { Intent } from '../../ports/intent.ts'
import type { Claim, ExecutionRecord, IdempotencyKeyClaim, Journal, Settlement } from '../../ports/journal.ts'
import { Status } from '../../status/statusCodes.ts'
import { IdempotencyKeyReusedError } from '../idempotencyKeyReusedError.ts'
import { fromIdempotencyKeyRow, type IdempotencyKeyRow, isSameRequest } from '../idempotencyKeyRow.ts'
import { fromRow, holding, type Row, senderKey, serializeIntent, storedAs } from '../journalRow.ts'
import { prunable, prunableWebhooks } from '../prunable.ts'
import { outboxDdl } from '../webhookOutboxDdl.ts'
import { createSqliteOpsSwitchStore } from './createSqliteOpsSwitchStore.ts'
import { createSqlitePaymentLedger, rebuildPaymentsTable } from './createSqlitePaymentLedger.ts'
import { createSqliteWebhookOutbox } from './createSqliteWebhookOutbox.ts'
import { createWalSync } from './createWalSync.ts'
import { opsAuditDdl } from './opsAuditDdl.ts'
import { createWriteQueue } from './writeQueue.ts'

export type OpenJournalParameters = {
  /** File path, or `:memory:` for a journal that dies with the process (devnet, tests). */
  path: string
  /** `full` fsyncs the signed-transaction write (survives power loss); `normal` survives a process crash only. */
  synchronous?: 'full' | 'normal'
}

/**
 * The schema's history, applied in order from the file's `user_version`: a journal written by an
 * older gateway is upgraded at start-up, in one transaction, keeping every record.
 */
const migrations: Array<(db: Database.Database) => void> = [
  // 1: the first journal (EVM-shaped: relayer nonce, 0x hash, 0x raw transaction).
  (db) =>
    db.exec(`
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
CREATE UNIQUE INDEX IF NOT EXISTS executions_intent_holder ON executions (chain_id, intent_hash) WHERE ${holding};
CREATE UNIQUE INDEX IF NOT EXISTS executions_nonce_holder ON executions (chain_id, sender, intent_nonce) WHERE ${holding};
CREATE INDEX IF NOT EXISTS executions_by_hash ON executions (intent_hash, id);
CREATE INDEX IF NOT EXISTS executions_pending ON executions (chain_id, relayer, tx_nonce) WHERE state = 'pending';
`),
  // 2: runtime-neutral. A transaction is an id, base64 bytes, a relayer and the runtime's JSON
  // details (the old relayer nonce becomes EVM's { txNonce }); attempts are numbered per intent;
  // signed_seq orders transactions as they were signed (for EVM, nonce order per relayer).
  (db) => {
    db.function('journal_hex_to_base64', { deterministic: true }, (hex: unknown) =>
      typeof hex === 'string' ? Buffer.from(hex.replace(/^0x/, ''), 'hex').toString('base64') : null,
    )
    const sequence = db
      .prepare<[], { seq: number }>(`SELECT seq FROM sqlite_sequence WHERE name = 'executions'`)
      .get()?.seq
    db.exec(`
CREATE TABLE executions_v2 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  chain_id TEXT NOT NULL,
  intent_hash TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  sender TEXT NOT NULL,
  intent_nonce TEXT NOT NULL,
  intent TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('claimed', 'pending', 'mined', 'reverted', 'dropped')),
  status INTEGER NOT NULL,
  relayer TEXT,
  tx_id TEXT,
  tx_bytes TEXT,
  tx_details TEXT CHECK (tx_details IS NULL OR json_valid(tx_details)),
  signed_seq INTEGER,
  block_number TEXT,
  gas_used TEXT,
  return_data TEXT,
  detail TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (chain_id, intent_hash, attempt)
);
INSERT INTO executions_v2 (id, chain_id, intent_hash, attempt, sender, intent_nonce, intent, state, status, relayer, tx_id, tx_bytes, tx_details, signed_seq,
                           block_number, gas_used, return_data, detail, created_at, updated_at)
SELECT id, chain_id, intent_hash, ROW_NUMBER() OVER (PARTITION BY chain_id, intent_hash ORDER BY id), sender, intent_nonce, intent, state, status, relayer,
       transaction_hash, journal_hex_to_base64(raw_transaction), CASE WHEN tx_nonce IS NULL THEN NULL ELSE json_object('txNonce', tx_nonce) END,
       CASE WHEN transaction_hash IS NULL THEN NULL ELSE ROW_NUMBER() OVER (ORDER BY transaction_hash IS NULL, tx_nonce, id) END,
       block_number, gas_used, return_data, detail, created_at, updated_at
FROM executions;
DROP TABLE executions;
ALTER TABLE executions_v2 RENAME TO executions;
CREATE UNIQUE INDEX executions_intent_holder ON executions (chain_id, intent_hash) WHERE ${holding};
CREATE UNIQUE INDEX executions_nonce_holder ON executions (chain_id, sender, intent_nonce) WHERE ${holding};
CREATE INDEX executions_by_hash ON executions (intent_hash, id);
CREATE INDEX executions_pending ON executions (chain_id, relayer, signed_seq) WHERE state = 'pending';
CREATE INDEX executions_signed ON executions (signed_seq);
`)
    // Ids of released claims are never handed out again.
    const top = Math.max(
      sequence ?? 0,
      db.prepare<[], { n: number | null }>('SELECT MAX(id) AS n FROM executions').get()?.n ?? 0,
    )
    db.prepare(`DELETE FROM sqlite_sequence WHERE name = 'executions'`).run()
    if (top > 0) db.prepare(`INSERT INTO sqlite_sequence (name, seq) VALUES ('executions', ?)`).run(top)
  },
  // 3: chain instance, block hash and finality (confirmations, reorgs), replaced attempts. Records
  // written before are final (they were reported so) and bound to no instance (unknown).
  (db) =>
    db.exec(`
ALTER TABLE executions ADD COLUMN chain_instance TEXT;
ALTER TABLE executions ADD COLUMN block_hash TEXT;
ALTER TABLE executions ADD COLUMN final INTEGER NOT NULL DEFAULT 0;
ALTER TABLE executions ADD COLUMN replaces INTEGER REFERENCES executions (id);
UPDATE executions SET final = 1 WHERE state IN ('mined', 'reverted', 'dropped');
CREATE INDEX executions_unconfirmed ON executions (chain_id, id) WHERE state IN ('mined', 'reverted') AND final = 0;
`),
  // 4: the API key that claimed each attempt (its webhook endpoints get the attempt's events); none for older records.
  (db) => db.exec(`ALTER TABLE executions ADD COLUMN api_key_id TEXT;`),
  // 5: the change feed of the webhooks (Journal.changesAfter): every insert or update of an
  // execution takes the next number of a counter, in the transaction that makes it, so the feed
  // is in commit order whatever the clock says (updated_at is not: it is read before the write is
  // queued). A counter of its own, not MAX + 1: a deleted row's number is never given again.
  // Older records are numbered in their updated_at order. Also the webhook feed's position and the
  // outbox's per-endpoint index (each endpoint is leased apart).
  (db) => {
    db.exec(outboxDdl)
    db.exec(`
ALTER TABLE executions ADD COLUMN change_seq INTEGER;
UPDATE executions SET change_seq = r.n FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY updated_at, id) AS n FROM executions) AS r WHERE r.id = executions.id;
CREATE TABLE journal_changes (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
INSERT INTO journal_changes (id, seq) SELECT 1, COALESCE(MAX(change_seq), 0) FROM executions;
CREATE INDEX executions_change ON executions (change_seq);
CREATE TRIGGER executions_changed_insert AFTER INSERT ON executions BEGIN
  UPDATE journal_changes SET seq = seq + 1 WHERE id = 1;
  UPDATE executions SET change_seq = (SELECT seq FROM journal_changes WHERE id = 1) WHERE id = NEW.id;
END;
CREATE TRIGGER executions_changed_update AFTER UPDATE ON executions WHEN NEW.change_seq IS OLD.change_seq BEGIN
  UPDATE journal_changes SET seq = seq + 1 WHERE id = 1;
  UPDATE executions SET change_seq = (SELECT seq FROM journal_changes WHERE id = 1) WHERE id = NEW.id;
END;
CREATE TABLE webhook_feed (id INTEGER PRIMARY KEY CHECK (id = 1), change BIGINT NOT NULL, row_id BIGINT NOT NULL);
CREATE INDEX webhook_outbox_endpoint_due ON webhook_outbox (endpoint, next_at) WHERE delivered_at IS NULL;
`)
  },
  // 6: Idempotency-Keys of POST /intents/execute: one row per caller's key (scope, key), written by
  // the claim it came with, in the claim's transaction; the body's fingerprint, the (chain, intent)
  // it answers for and the claim's row (given back with it); kept until expires_at, then pruned.
  (db) =>
    db.exec(`
CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  chain_id TEXT NOT NULL,
  intent_hash TEXT NOT NULL,
  execution_id INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, idem_key)
);
CREATE INDEX idempotency_keys_execution ON idempotency_keys (execution_id);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`),
  // 7: the operator console's switches, audited (ops/opsSwitchStore.ts).
  opsAuditDdl,
  // 8: x402 payments: the block that mined each EVM settlement (re-checked until final, CONFIRMATIONS
  // deep), the signed payment it sent (sent again if that block is orphaned), and the `reorged`
  // state. Settlements written before count as final. A journal without payments yet gets the
  // table from the ledger, as before.
  (db) => rebuildPaymentsTable(db),
  // 9: the change feed's numbers given by the writes themselves (each insert or update of an
  // execution sets change_seq, the counter is saved once per group commit) instead of two
  // triggers, which wrote every changed row a second time and the counter once per row: ~40% of
  // the journal's CPU per execute (docs/performance.md). The numbers stay in commit order and are
  // never given twice.
  (db) =>
    db.exec(`DROP TRIGGER IF EXISTS executions_changed_insert; DROP TRIGGER IF EXISTS executions_changed_update;`),
  // 10: the records bound to a chain instance, by chain and instance: the reconciler's look for
  // records of another instance (every pass, every chain) reads two ranges of this index (below and
  // above this instance's), not every pending and mined record the journal holds (a full pass over
  // the history: 38 ms at 200,000 records, growing with it, on the event loop every 5 s).
  (db) =>
    db.exec(
      `CREATE INDEX IF NOT EXISTS executions_instance ON executions (chain_id, chain_instance) WHERE state IN ('pending', 'mined');`,
    ),
  // 11: bundles (docs/journal.md): a transaction that carries several executions (EVM: IntentBundler's
  // run) is kept once, its bytes as a BLOB, in `transactions`; each of its records names it by tx_id
  // and its call by bundle_index, with no bytes of its own. The partial index finds a bundle's records
  // (retention) without costing the single transactions' writes anything.
  (db) => {
    const columns = db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('executions')`).all()
    if (!columns.some((c) => c.name === 'bundle_index'))
      db.exec('ALTER TABLE executions ADD COLUMN bundle_index INTEGER')
    db.exec(`
CREATE TABLE IF NOT EXISTS transactions (
  chain_id TEXT NOT NULL,
  tx_id TEXT NOT NULL,
  relayer TEXT NOT NULL,
  bytes BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (chain_id, tx_id)
);
CREATE INDEX IF NOT EXISTS executions_bundle ON executions (chain_id, tx_id) WHERE bundle_index IS NOT NULL;
`)
  },
]

/**
 * The records of a chain bound to another instance of it (?1: the chain, ?2: this instance): two
 * ranges of executions_instance, below and above this instance (NULL, no instance, is in neither).
 */
export const otherInstancesSql = `SELECT * FROM (SELECT * FROM executions WHERE chain_id = ?1 AND state IN ('pending', 'mined') AND chain_instance < ?2
                UNION ALL SELECT * FROM executions WHERE chain_id = ?1 AND state IN ('pending', 'mined') AND chain_instance > ?2)
 ORDER BY signed_seq, id`

/** The schema version this code writes (SQLite's `user_version`). */
export const journalSchemaVersion = migrations.length

/** Brings the file to the current schema; a file from a newer gateway is refused, not touched. */
function migrate(db: Database.Database, path: string): void {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version > journalSchemaVersion) {
    throw new Error(
      `it has journal schema version ${version}, newer than this gateway's ${journalSchemaVersion}: run a gateway at least as new as the one that wrote it`,
    )
  }
  if (version === journalSchemaVersion) return
  const hasRecords =
    version > 0 || Boolean(db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'executions'`).get())
  // The operator's data: a copy of the file as it was, before its first upgrade by this code.
  if (hasRecords && path !== ':memory:')
    db.exec(`VACUUM INTO '${`${path}.v${version}-${Date.now()}.bak`.replaceAll("'", "''")}'`)
  db.transaction(() => {
    for (let v = version; v < journalSchemaVersion; v++) migrations[v]!(db)
    db.pragma(`user_version = ${journalSchemaVersion}`)
  }).immediate()
}

export function openJournal({ path, synchronous = 'full' }: OpenJournalParameters): Journal {
  let db: Database.Database | undefined
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    db = new Database(path, { timeout: 1000 })
    // One gateway per journal: the first write takes a lock that is held until close, so a
    // second gateway on the same file fails at start-up instead of sharing its relayer nonces.
    db.pragma('locking_mode = EXCLUSIVE')
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    migrate(db, path)
    // A claim that never got as far as a signed transaction sent nothing: give it back, with its Idempotency-Key.
    const claimedKeys = db.prepare(
      `DELETE FROM idempotency_keys WHERE execution_id IN (SELECT id FROM executions WHERE state = 'claimed')`,
    )
    const claims = db.prepare(`DELETE FROM executions WHERE state = 'claimed'`)
    db.transaction(() => {
      claimedKeys.run()
      claims.run()
    })()
  } catch (err) {
    // Let go of the file (and its lock): a refused journal is left as it was.
    if (db?.open) db.close()
    const message = err instanceof Error ? err.message : String(err)
    throw new ConfigError([
      /locked|busy/i.test(message)
        ? `JOURNAL_PATH: ${path} is in use by another gateway process (one journal per gateway)`
        : `JOURNAL_PATH: cannot open the execution journal at ${path}: ${message}`,
    ])
  }

  // The change feed's counter (migration 9): every insert or update of an execution takes the next
  // number, in the order the group commit runs them; the counter is saved in the same commit.
  const saveChange = db.prepare<[number]>('UPDATE journal_changes SET seq = ? WHERE id = 1')
  let changeSeq = db.prepare<[], { seq: number }>('SELECT seq FROM journal_changes WHERE id = 1').get()!.seq
  let savedChange = changeSeq
  const nextChange = () => ++changeSeq

  // The claimed row is read back by its id, not returned by the insert: with RETURNING a claim cost
  // 84-89 µs of CPU against 34 µs this way (bench/journalWrites.ts, 2026-12-01). temp_store = MEMORY
  // brought it to 41 µs and strace counted 801 unlink calls in a run, so the returned row seems to go
  // through temporary storage; that much was measured, not more (docs/performance.md).
  const insert = db.prepare<unknown[]>(
    `INSERT INTO executions (chain_id, intent_hash, attempt, sender, intent_nonce, intent, state, status, chain_instance, api_key_id, created_at, updated_at, change_seq)
     VALUES (?, ?, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM executions WHERE chain_id = ? AND intent_hash = ?), ?, ?, ?, 'claimed', ?, ?, ?, ?, ?, ?)`,
  )
  const insertReplacement = db.prepare(
    `INSERT INTO executions (chain_id, intent_hash, attempt, sender, intent_nonce, intent, state, status, chain_instance, api_key_id, relayer, tx_id, tx_bytes, tx_details,
                             bundle_index, signed_seq, replaces, created_at, updated_at, change_seq)
     SELECT chain_id, intent_hash, (SELECT MAX(attempt) + 1 FROM executions e WHERE e.chain_id = o.chain_id AND e.intent_hash = o.intent_hash), sender, intent_nonce, intent,
            'pending', status, chain_instance, api_key_id, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(signed_seq), 0) + 1 FROM executions), id, ?, ?, ?
     FROM executions o WHERE id = ?`,
  )
  const markReplaced = db.prepare(
    `UPDATE executions SET change_seq = ?, state = 'dropped', status = ?, detail = ?, final = 1, updated_at = ? WHERE id = ? AND state = 'pending'`,
  )
  const replacedChain = db.prepare<[number], Row>(
    `WITH RECURSIVE chain(id) AS (SELECT replaces FROM executions WHERE id = ? UNION ALL SELECT e.replaces FROM executions e JOIN chain c ON e.id = c.id WHERE e.replaces IS NOT NULL)
     SELECT executions.* FROM executions JOIN chain ON executions.id = chain.id ORDER BY executions.id`,
  )
  const unconfirmedAll = db.prepare<[], Row>(
    `SELECT * FROM executions WHERE state IN ('mined', 'reverted') AND final = 0 ORDER BY id`,
  )
  const unconfirmedOn = db.prepare<[string], Row>(
    `SELECT * FROM executions WHERE state IN ('mined', 'reverted') AND final = 0 AND chain_id = ? ORDER BY id`,
  )
  const confirm = db.prepare(
    `UPDATE executions SET change_seq = ?, final = 1, updated_at = ? WHERE id = ? AND state IN ('mined', 'reverted') AND final = 0`,
  )
  const reopen = db.prepare(
    `UPDATE executions SET change_seq = ?, state = 'pending', status = ?, block_number = NULL, block_hash = NULL, gas_used = NULL, return_data = NULL, final = 0, detail = ?, updated_at = ?
     WHERE id = ? AND state IN ('mined', 'reverted')`,
  )
  const retire = db.prepare(
    `UPDATE executions SET change_seq = ?, state = 'dropped', status = ?, detail = ?, final = 1, updated_at = ? WHERE id = ? AND state IN ('pending', 'mined')`,
  )
  const rebind = db.prepare(`UPDATE executions SET change_seq = ?, chain_instance = ? WHERE id = ?`)
  const otherInstances = db.prepare<[{ 1: string; 2: string }], Row>(otherInstancesSql)
  const byTxId = db.prepare<[string, string, string], Row>(
    `SELECT * FROM executions WHERE chain_id = ? AND intent_hash = ? AND tx_id = ?`,
  )
  const byId = db.prepare<[number], Row>('SELECT * FROM executions WHERE id = ?')
  const byAttempt = db.prepare<[string, string, number], Row>(
    'SELECT * FROM executions WHERE chain_id = ? AND intent_hash = ? AND attempt = ?',
  )
  const allAttempts = db.prepare<[string, string], Row>(
    'SELECT * FROM executions WHERE chain_id = ? AND intent_hash = ? ORDER BY attempt',
  )
  const intentHolder = db.prepare<[string, string], Row>(
    `SELECT * FROM executions WHERE chain_id = ? AND intent_hash = ? AND ${holding}`,
  )
  const nonceHolder = db.prepare<[string, string, string], Row>(
    `SELECT * FROM executions WHERE chain_id = ? AND sender = ? AND intent_nonce = ? AND ${holding}`,
  )
  // A reverted intent is final: its hash has that one outcome (no nonce is used by a revert, so it holds the hash only).
  const revertedIntent = db.prepare<[string, string], Row>(
    `SELECT * FROM executions WHERE intent_hash = ? AND chain_id = ? AND state = 'reverted' ORDER BY id DESC LIMIT 1`,
  )
  const remove = db.prepare(`DELETE FROM executions WHERE id = ? AND state IN ('claimed', 'pending')`)
  const withdrawClaim = db.prepare(`DELETE FROM executions WHERE id = ? AND state = 'claimed'`)
  const keyOf = db.prepare<[string, string, number], IdempotencyKeyRow>(
    `SELECT * FROM idempotency_keys WHERE scope = ? AND idem_key = ? AND expires_at > ?`,
  )
  // An expired key is free again: the new claim takes its row.
  const recordKey = db.prepare(
    `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, chain_id, intent_hash, execution_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, chain_id = excluded.chain_id, intent_hash = excluded.intent_hash,
       execution_id = excluded.execution_id, created_at = excluded.created_at, expires_at = excluded.expires_at
     WHERE idempotency_keys.expires_at <= excluded.created_at`,
  )
  const releaseKeys = db.prepare(`DELETE FROM idempotency_keys WHERE execution_id = ?`)
  // A bundle's bytes, once for all its calls: written by its first call's record, read only when asked for.
  const bundleKnown = db.prepare<[string, string], { n: number }>(
    'SELECT 1 AS n FROM transactions WHERE chain_id = ? AND tx_id = ?',
  )
  const insertBundle = db.prepare(
    'INSERT INTO transactions (chain_id, tx_id, relayer, bytes, created_at) VALUES (?, ?, ?, ?, ?)',
  )
  const bundleBytes = db.prepare<[string, string], { bytes: Buffer }>(
    'SELECT bytes FROM transactions WHERE chain_id = ? AND tx_id = ?',
  )
  // A bundle none of whose records is left (retention took them all).
  const pruneBundles = db.prepare<[number]>(
    `DELETE FROM transactions WHERE created_at < ? AND NOT EXISTS
       (SELECT 1 FROM executions e WHERE e.chain_id = transactions.chain_id AND e.tx_id = transactions.tx_id AND e.bundle_index IS NOT NULL)`,
  )
  /** The bytes a record of `tx` keeps: none for a bundle's call, whose bundle is written once (inside the caller's write). */
  const bytesOf = (chainId: string, tx: SignedExecution, now: number): string | null => {
    if (!tx.bundle) return tx.bytes
    if (!bundleKnown.get(chainId, tx.id))
      insertBundle.run(chainId, tx.id, tx.relayer, Buffer.from(tx.bytes, 'base64'), now)
    return null
  }
  const pruneKeys = db.prepare<[number]>(`DELETE FROM idempotency_keys WHERE expires_at <= ?`)
  const signed = db.prepare(
    `UPDATE executions SET change_seq = ?, state = 'pending', relayer = ?, tx_id = ?, tx_bytes = ?, tx_details = ?, bundle_index = ?,
       signed_seq = (SELECT COALESCE(MAX(signed_seq), 0) + 1 FROM executions), updated_at = ?
     WHERE id = ? AND state IN ('claimed', 'pending')`,
  )
  const settle = db.prepare(
    `UPDATE executions SET change_seq = ?, state = ?, status = ?, block_number = ?, block_hash = ?, final = ?, gas_used = ?, return_data = ?, detail = ?, updated_at = ?
     WHERE id = ? AND state = ? AND tx_id = ?`,
  )
  // The live attempt first: an attempt that replaced another may be dropped while the one it replaced was mined.
  const latestOnChain = db.prepare<[string, string], Row>(
    `SELECT * FROM executions WHERE intent_hash = ? AND chain_id = ? ORDER BY ${holding} DESC, id DESC LIMIT 1`,
  )
  const latest = db.prepare<[string], Row>(
    `SELECT * FROM executions WHERE intent_hash = ? ORDER BY ${holding} DESC, updated_at DESC, id DESC LIMIT 1`,
  )
  const pendingAll = db.prepare<[], Row>(`SELECT * FROM executions WHERE state = 'pending' ORDER BY signed_seq`)
  const pendingOn = db.prepare<[string], Row>(
    `SELECT * FROM executions WHERE state = 'pending' AND chain_id = ? ORDER BY signed_seq`,
  )
  const pendingOf = db.prepare<[string, string], Row>(
    `SELECT * FROM executions WHERE state = 'pending' AND chain_id = ? AND relayer = ? ORDER BY signed_seq`,
  )
  const pendingCount = db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM executions WHERE state = 'pending'`)
  const pruneExecutions = db.prepare<[number]>(`DELETE FROM executions WHERE ${prunable('executions')}`)

  // Run in the write queue's IMMEDIATE group transaction (the check and the insert under one write
  // lock); its one write is the insert, last: it needs no savepoint of its own.
  const claim = (
    chainId: string,
    intentHash: Hex,
    intent: Intent,
    chainInstance: string | null,
    apiKeyId: string | null,
  ): Claim => {
    const sender = senderKey(intent)
    const held =
      intentHolder.get(chainId, intentHash) ??
      revertedIntent.get(intentHash, chainId) ??
      nonceHolder.get(chainId, sender, intent.nonce.toString())
    if (held) return { ok: false, holder: fromRow(held) }
    const now = Date.now()
    const { lastInsertRowid } = insert.run(
      chainId,
      intentHash,
      chainId,
      intentHash,
      sender,
      intent.nonce.toString(),
      serializeIntent(intent),
      Status.SUBMITTED,
      chainInstance,
      apiKeyId,
      now,
      now,
      nextChange(),
    )
    return { ok: true, record: fromRow(byId.get(Number(lastInsertRowid))!) }
  }
  // The key is checked before anything is written (SQLite has one writer: nobody records it meanwhile),
  // and recorded with a claim that succeeded, in its transaction.
  const claimWithKey = db.transaction(
    (
      chainId: string,
      intentHash: Hex,
      intent: Intent,
      chainInstance: string | null,
      apiKeyId: string | null,
      key: IdempotencyKeyClaim,
    ): Claim => {
      const now = Date.now()
      const row = keyOf.get(key.scope, key.key, now)
      const recorded = row && fromIdempotencyKeyRow(row)
      if (recorded && !isSameRequest(recorded, key, chainId, intentHash)) throw new IdempotencyKeyReusedError(recorded)
      const claimed = claim(chainId, intentHash, intent, chainInstance, apiKeyId)
      // A key already recorded (an earlier attempt of this intent, dropped since) stays with the attempt that recorded it.
      if (claimed.ok && !recorded)
        recordKey.run(
          key.scope,
          key.key,
          key.fingerprint,
          chainId,
          intentHash,
          claimed.record.id,
          now,
          key.expiresAt.getTime(),
        )
      return claimed
    },
  )
  const release = db.transaction((id: number) => {
    if (remove.run(id).changes === 1) releaseKeys.run(id)
  })
  const replace = db.transaction(
    (record: ExecutionRecord, tx: SignedExecution, detail: string, now: number): number => {
      const { changes } = markReplaced.run(nextChange(), Status.GATEWAY_FAILURE, detail, now, record.id)
      if (changes !== 1) throw new Error(`journal record ${record.id} is no longer pending: it cannot be replaced`)
      return Number(
        insertReplacement.run(
          tx.relayer,
          tx.id,
          bytesOf(record.chainId, tx, now),
          JSON.stringify(tx.details),
          tx.bundle?.index ?? null,
          now,
          now,
          nextChange(),
          record.id,
        ).lastInsertRowid,
      )
    },
  )
  type SettleArgs = { record: ExecutionRecord; s: Settlement; now: number }
  const settleRow = (id: number, fromState: string, txId: string | null, { s, now }: SettleArgs) =>
    settle.run(
      nextChange(),
      s.state,
      s.status,
      s.blockNumber?.toString() ?? null,
      s.blockHash ?? null,
      s.final === false ? 0 : 1,
      s.gasUsed?.toString() ?? null,
      s.returnData ?? null,
      s.detail ?? null,
      now,
      id,
      fromState,
      txId,
    ).changes === 1
  // An earlier attempt's transaction was mined: that attempt takes the outcome, the record is replaced.
  const settleEarlier = db.transaction((args: SettleArgs): boolean => {
    const { record, s, now } = args
    const earlier = byTxId.get(record.chainId, record.intentHash, s.transactionId!)
    if (!earlier || earlier.id >= record.id || earlier.state !== 'dropped') return false
    if (
      markReplaced.run(
        nextChange(),
        Status.GATEWAY_FAILURE,
        `replaced: the transaction of attempt ${earlier.attempt} (${earlier.tx_id}) was mined instead`,
        now,
        record.id,
      ).changes !== 1
    )
      return false
    return settleRow(earlier.id, 'dropped', earlier.tx_id, args)
  })

  // Group commit: the signed-transaction writes wait for an fsync of the WAL off the event loop.
  const walSync = createWalSync({ db, path })
  const durable = (): Promise<void> =>
    synchronous !== 'full' || path === ':memory:' ? Promise.resolve() : walSync.durable()

  // Every write of the journal goes through the group commit, in the order asked (reads do not wait).
  const { write, flush } = createWriteQueue(db, {
    beforeCommit() {
      if (changeSeq === savedChange) return
      saveChange.run(changeSeq)
      savedChange = changeSeq
    },
  })
  // A write of one statement, or a db.transaction (a savepoint of its own when nested): no second savepoint around it.
  const atomic = { atomic: true }
  const payments = createSqlitePaymentLedger({ db })
  const webhooks = createSqliteWebhookOutbox({ db })
  // After the ledger and the outbox made their tables.
  const prunePayments = db.prepare<[number]>(
    `DELETE FROM x402_payments WHERE state IN ('consumed', 'released') AND updated_at < ?`,
  )
  const pruneWebhooks = db.prepare<[number, number]>(`DELETE FROM webhook_outbox WHERE ${prunableWebhooks('?', '?')}`)
  const changedAfter = db.prepare<[number, number], Row & { change_seq: number }>(
    'SELECT * FROM executions WHERE change_seq > ? ORDER BY change_seq LIMIT ?',
  )
  const firstChangeAt = db.prepare<[number], { n: number | null }>(
    'SELECT MIN(change_seq) AS n FROM executions WHERE updated_at >= ?',
  )
  const lastChange = db.prepare<[], { seq: number }>('SELECT seq FROM journal_changes WHERE id = 1')
  return {
    path,
    backend: 'sqlite',
    dbSystem: 'sqlite',
    payments,
    webhooks,
    ops: createSqliteOpsSwitchStore({ db }),
    // The group transaction is IMMEDIATE: the check and the insert happen under one write lock.
    claim: ({ chainId, intentHash, intent, chainInstance, apiKeyId, idempotencyKey }) =>
      idempotencyKey
        ? write(
            () => claimWithKey(chainId, intentHash, intent, chainInstance ?? null, apiKeyId ?? null, idempotencyKey),
            atomic,
          )
        : write(() => claim(chainId, intentHash, intent, chainInstance ?? null, apiKeyId ?? null), atomic),
    async idempotencyKey(scope, key) {
      const row = keyOf.get(scope, key, Date.now())
      return row && fromIdempotencyKeyRow(row)
    },
    async release(record) {
      await write(() => release(record.id), atomic)
    },
    async withdraw(record) {
      let changes = 0
      await write(() => {
        changes = withdrawClaim.run(record.id).changes
        // A withdrawn claim gives its Idempotency-Key back, as a released one does.
        if (changes === 1) releaseKeys.run(record.id)
      }, atomic)
      return changes === 1
    },
    async recordSigned(record, tx) {
      const now = Date.now()
      const details = JSON.stringify(tx.details)
      await write(() => {
        const bytes = bytesOf(record.chainId, tx, now)
        const { changes } = signed.run(
          nextChange(),
          tx.relayer,
          tx.id,
          bytes,
          details,
          tx.bundle?.index ?? null,
          now,
          record.id,
        )
        if (changes === 1) return
        // Withdrawn by its creator (MCP tasks/cancel) between the claim and the signature.
        if (!byId.get(record.id)) throw new ClaimWithdrawnError(record.id)
        throw new Error(`journal record ${record.id} is no longer open for a transaction`)
      }, atomic)
      await durable()
      Object.assign(record, { state: 'pending', transaction: storedAs(tx), updatedAt: new Date(now) })
    },
    async settle(record, s) {
      if (!db.open) return false // a watch that outlived shutdown: the next start reconciles it
      const now = Date.now()
      if (s.transactionId !== undefined && s.transactionId !== record.transaction?.id) {
        if (!(await write(() => settleEarlier({ record, s, now }), atomic))) return false
        Object.assign(record, fromRow(byId.get(record.id)!))
        return true
      }
      const txId = record.transaction?.id ?? null
      if (!(await write(() => settleRow(record.id, 'pending', txId, { record, s, now }), atomic))) return false
      const { transactionId: _, ...fields } = s
      Object.assign(record, fields, { blockHash: s.blockHash, final: s.final !== false, updatedAt: new Date(now) })
      return true
    },
    async replace(record, tx, detail) {
      const now = Date.now()
      const id = await write(() => replace(record, tx, detail, now), atomic)
      await durable()
      Object.assign(record, fromRow(byId.get(record.id)!))
      return fromRow(byId.get(id)!)
    },
    async transactionBytes(chainId, transactionId) {
      return bundleBytes.get(chainId, transactionId)?.bytes.toString('base64')
    },
    async replaced(record) {
      return replacedChain.all(record.id).flatMap((row) => fromRow(row).transaction ?? [])
    },
    async unconfirmed(filter) {
      return (filter ? unconfirmedOn.all(filter.chainId) : unconfirmedAll.all()).map(fromRow)
    },
    async confirm(record) {
      if (!db.open) return false
      const now = Date.now()
      if ((await write(() => confirm.run(nextChange(), now, record.id), atomic)).changes !== 1) return false
      Object.assign(record, { final: true, updatedAt: new Date(now) })
      return true
    },
    async reopen(record, detail) {
      if (!db.open) return false
      const now = Date.now()
      if ((await write(() => reopen.run(nextChange(), Status.SUBMITTED, detail, now, record.id), atomic)).changes !== 1)
        return false
      Object.assign(record, fromRow(byId.get(record.id)!))
      return true
    },
    async retire(record, detail) {
      if (!db.open) return false
      const now = Date.now()
      if (
        (await write(() => retire.run(nextChange(), Status.GATEWAY_FAILURE, detail, now, record.id), atomic))
          .changes !== 1
      )
        return false
      Object.assign(record, fromRow(byId.get(record.id)!))
      return true
    },
    async rebind(record, chainInstance) {
      await write(() => rebind.run(nextChange(), chainInstance, record.id), atomic)
      record.chainInstance = chainInstance
    },
    async otherInstances(chainId, chainInstance) {
      return otherInstances.all({ 1: chainId, 2: chainInstance }).map(fromRow)
    },
    async attempts(chainId, intentHash) {
      return allAttempts.all(chainId, intentHash).map(fromRow)
    },
    async attempt(chainId, intentHash, attempt) {
      const row = byAttempt.get(chainId, intentHash, attempt)
      return row && fromRow(row)
    },
    async get(intentHash, chainId) {
      const row = chainId ? latestOnChain.get(intentHash, chainId) : latest.get(intentHash)
      return row && fromRow(row)
    },
    async pending(filter) {
      const rows = !filter
        ? pendingAll.all()
        : filter.relayer === undefined
          ? pendingOn.all(filter.chainId)
          : pendingOf.all(filter.chainId, filter.relayer)
      return rows.map(fromRow)
    },
    pendingCount: async () => pendingCount.get()!.n,
    async prune(before) {
      const cutoff = before.getTime()
      const now = Date.now()
      return write(() => {
        pruneKeys.run(now)
        const pruned = {
          executions: pruneExecutions.run(cutoff).changes,
          payments: prunePayments.run(cutoff).changes,
          webhooks: pruneWebhooks.run(cutoff, cutoff).changes,
        }
        pruneBundles.run(cutoff)
        return pruned
      })
    },
    async changesAfter(position, limit) {
      // Writes are serialized and each takes its number in its own transaction: a number read is committed, and none below it comes later.
      const rows = changedAfter.all(position.change, limit)
      return {
        records: rows.map(fromRow),
        position: rows.length === 0 ? position : { change: rows.at(-1)!.change_seq, id: 0 },
      }
    },
    async changePositionAt(since) {
      const first = firstChangeAt.get(since)?.n
      return { change: first == null ? lastChange.get()!.seq : first - 1, id: 0 }
    },
    async backup(destination) {
      mkdirSync(dirname(destination), { recursive: true })
      await db.backup(destination)
    },
    async ping() {},
    close() {
      if (!db.open) return
      // What was asked before close is written (its callers are told when it is).
      flush()
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
      walSync.close()
    },
  }
}
