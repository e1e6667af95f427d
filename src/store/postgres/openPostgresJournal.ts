// The execution journal on PostgreSQL, for several gateway instances sharing one database: the
// same operations and guarantees as the SQLite journal (a record claimed before preflight, its
// signed transaction committed before the broadcast, one live attempt per (chain, intent) and
// per (chain, sender, nonce)), enforced by the database's unique indexes so that they hold
// across processes. Versioned migrations run at start-up under an advisory lock.

import { createHash } from 'node:crypto'
import pg from 'pg'
import type { Hex } from 'viem'
import { redactUrl } from '../../config/redactUrl.ts'
import { ClaimWithdrawnError } from '../../errors/claimWithdrawnError.ts'
import { ConfigError } from '../../errors/configError.ts'
import { RelayerLeaseMovedError } from '../../errors/relayerLeaseMovedError.ts'
import { StorageUnavailableError } from '../../errors/storageUnavailableError.ts'
import type { SignedExecution } from '../../ports/chainAdapter.ts'
import type { Intent } from '../../ports/intent.ts'
import type { Claim, ExecutionRecord, IdempotencyKeyClaim, Journal, Settlement } from '../../ports/journal.ts'
import { Status } from '../../status/statusCodes.ts'
import { IdempotencyKeyReusedError } from '../idempotencyKeyReusedError.ts'
import { fromIdempotencyKeyRow, type IdempotencyKeyRow, isSameRequest } from '../idempotencyKeyRow.ts'
import { fromRow, holding, type Row, senderKey, serializeIntent, storedAs } from '../journalRow.ts'
import { prunable, prunableWebhooks } from '../prunable.ts'
import { outboxDdl } from '../webhookOutboxDdl.ts'
import { createPostgresOpsSwitchStore } from './createPostgresOpsSwitchStore.ts'
import { createPostgresPaymentLedger } from './createPostgresPaymentLedger.ts'
import { createPostgresWebhookOutbox } from './createPostgresWebhookOutbox.ts'
import { createJournalBatches, leaseHeld } from './journalBatches.ts'
import { opsAuditDdl } from './opsAuditDdl.ts'

/** The schema's history, applied in order; each entry is one version. */
const migrations: string[] = [
  // 1: the journal as SQLite's schema 3 has it, plus x402 payments.
  `
CREATE TABLE executions (
  id BIGSERIAL PRIMARY KEY,
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
  tx_details JSONB,
  signed_seq BIGINT,
  block_number TEXT,
  block_hash TEXT,
  final INTEGER NOT NULL DEFAULT 0,
  chain_instance TEXT,
  replaces BIGINT REFERENCES executions (id),
  gas_used TEXT,
  return_data TEXT,
  detail TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (chain_id, intent_hash, attempt)
);
CREATE SEQUENCE executions_signed_seq;
CREATE UNIQUE INDEX executions_intent_holder ON executions (chain_id, intent_hash) WHERE ${holding};
CREATE UNIQUE INDEX executions_nonce_holder ON executions (chain_id, sender, intent_nonce) WHERE ${holding};
CREATE INDEX executions_by_hash ON executions (intent_hash, id);
CREATE INDEX executions_pending ON executions (chain_id, relayer, signed_seq) WHERE state = 'pending';
CREATE INDEX executions_unconfirmed ON executions (chain_id, id) WHERE state IN ('mined', 'reverted') AND final = 0;
CREATE TABLE x402_payments (
  id BIGSERIAL PRIMARY KEY,
  network TEXT NOT NULL,
  asset TEXT NOT NULL,
  payer TEXT NOT NULL,
  nonce TEXT NOT NULL,
  amount TEXT NOT NULL,
  pay_to TEXT NOT NULL,
  payment_id TEXT UNIQUE,
  valid_before TEXT,
  payload_hash TEXT NOT NULL,
  route TEXT NOT NULL,
  chain_id TEXT NOT NULL,
  intent_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'consumed', 'released')),
  transaction_hash TEXT,
  reason TEXT,
  answer TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (network, asset, payer, nonce)
);
CREATE INDEX x402_payments_binding ON x402_payments (chain_id, intent_hash, route, state);
CREATE INDEX x402_payments_state ON x402_payments (state);
`,
  // 2: relayer keys leased to instances, and the instances alive (for each one's fair share of keys).
  `
CREATE TABLE relayer_leases (
  chain_id TEXT NOT NULL,
  relayer TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (chain_id, relayer)
);
CREATE TABLE gateway_instances (
  instance_id TEXT PRIMARY KEY,
  expires_at TIMESTAMPTZ NOT NULL
);
`,
  // 3: the instance that made each claim, so that the claims of an instance that died are given back once it is known dead.
  `
ALTER TABLE executions ADD COLUMN instance_id TEXT;
`,
  // 4: the webhook outbox and its cursor over the executions.
  outboxDdl,
  // 5: the API key that claimed each attempt (its webhook endpoints get the attempt's events); none for older records.
  `
ALTER TABLE executions ADD COLUMN api_key_id TEXT;
`,
  // 6: the request of a payment whose settlement was pending (x402 settlement_pending), sent once it confirms.
  `
ALTER TABLE x402_payments ADD COLUMN pending_request TEXT;
`,
  // 7: the change feed of the webhooks (Journal.changesAfter): every insert or update of an
  // execution records the id of its transaction (a trigger: no write can forget it). The feed
  // reads only changes of transactions below the oldest one still running, which have all ended,
  // in (transaction, row) order: a slow writer's change, or one from an instance whose clock is
  // behind, is never passed over. Older records have 0 (before every later change). Also the
  // webhook feed's position and the outbox's per-endpoint index (each endpoint is leased apart).
  `
ALTER TABLE executions ADD COLUMN change_xid BIGINT NOT NULL DEFAULT 0;
CREATE FUNCTION executions_change_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id()::text::bigint;
  RETURN NEW;
END $$;
CREATE TRIGGER executions_change_xid BEFORE INSERT OR UPDATE ON executions FOR EACH ROW EXECUTE FUNCTION executions_change_xid();
CREATE INDEX executions_change ON executions (change_xid, id);
CREATE TABLE webhook_feed (id INTEGER PRIMARY KEY CHECK (id = 1), change BIGINT NOT NULL, row_id BIGINT NOT NULL);
CREATE INDEX webhook_outbox_endpoint_due ON webhook_outbox (endpoint, next_at) WHERE delivered_at IS NULL;
`,
  // 8: Idempotency-Keys of POST /intents/execute, shared by the fleet: one row per caller's key
  // (scope, key), written by the claim it came with, in the claim's transaction (the primary key
  // decides between instances racing with one key); the body's fingerprint, the (chain, intent) it
  // answers for and the claim's row (given back with it); kept until expires_at, then pruned.
  `
CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  chain_id TEXT NOT NULL,
  intent_hash TEXT NOT NULL,
  execution_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (scope, idem_key)
);
CREATE INDEX idempotency_keys_execution ON idempotency_keys (execution_id);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`,
  // 9: the operator console's switches, audited (ops/opsSwitchStore.ts).
  opsAuditDdl,
  // 10: each relayer lease's epoch, counted up whenever the key passes to another instance: a send signed under one epoch is never broadcast under another (fencing).
  `
ALTER TABLE relayer_leases ADD COLUMN IF NOT EXISTS epoch BIGINT NOT NULL DEFAULT 1;
`,
  // 11: x402 payments: the block that mined each EVM settlement (re-checked until final, CONFIRMATIONS
  // deep), the signed payment it sent (sent again if that block is orphaned), and the `reorged`
  // state. Settlements written before count as final.
  `
ALTER TABLE x402_payments DROP CONSTRAINT IF EXISTS x402_payments_state_check;
ALTER TABLE x402_payments ADD CONSTRAINT x402_payments_state_check CHECK (state IN ('reserved', 'settled', 'consumed', 'released', 'reorged'));
ALTER TABLE x402_payments ADD COLUMN settlement_block_number TEXT, ADD COLUMN settlement_block_hash TEXT,
  ADD COLUMN settlement_final INTEGER NOT NULL DEFAULT 1, ADD COLUMN settlement_payload TEXT;
ALTER TABLE x402_payments ALTER COLUMN settlement_final SET DEFAULT 0;
CREATE INDEX x402_payments_unfinal ON x402_payments (id) WHERE state IN ('settled', 'consumed') AND settlement_final = 0;
`,
  // 12: the records bound to a chain instance, by chain and instance: the reconciler's look for
  // records of another instance (every pass, every chain) reads two ranges of this index, not every
  // pending and mined record of the history.
  `
CREATE INDEX IF NOT EXISTS executions_instance ON executions (chain_id, chain_instance) WHERE state IN ('pending', 'mined');
`,
  // 13: bundles (docs/journal.md): a transaction that carries several executions (EVM: IntentBundler's
  // run) is kept once, its bytes as BYTEA, in \`transactions\`; each of its records names it by tx_id
  // and its call by bundle_index, with no bytes of its own.
  `
CREATE TABLE IF NOT EXISTS transactions (
  chain_id TEXT NOT NULL,
  tx_id TEXT NOT NULL,
  relayer TEXT NOT NULL,
  bytes BYTEA NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (chain_id, tx_id)
);
ALTER TABLE executions ADD COLUMN IF NOT EXISTS bundle_index INTEGER;
CREATE INDEX IF NOT EXISTS executions_bundle ON executions (chain_id, tx_id) WHERE bundle_index IS NOT NULL;
`,
]

/** The schema version this code writes. */
export const postgresJournalSchemaVersion = migrations.length

// Any fixed number: the lock that serializes migrations of gateways starting at once.
const migrationLock = 0x1066_0001

/** int8 (ids, timestamps, sequences) as numbers: they stay far below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

export type OpenPostgresJournalParameters = {
  /** `postgres://user:password@host:port/database` (DATABASE_URL). */
  url: string
  /** Connections in the pool; default 10. */
  maxConnections?: number
  /** How long a connection attempt may take before the database counts as unreachable; default 5 s. */
  connectTimeoutMs?: number
  /**
   * A claim (held while preflight runs, nothing signed) older than this was left by a gateway
   * that died: the next claim of its intent takes it over. SQLite gives claims back at open; a
   * shared database gives back at open only those of this INSTANCE_ID (other gateways' claims are
   * live). Default 2 minutes.
   */
  staleClaimMs?: number
  /**
   * This gateway's INSTANCE_ID, written on its claims. A claim of an instance whose heartbeat (the
   * relayer lease store's) has expired is taken over at once, without waiting `staleClaimMs`.
   */
  instanceId?: string | undefined
  /**
   * DATABASE_PREPARED_STATEMENTS: statements asked again are prepared, so the server parses and
   * plans each once per connection (default true). False for a pooler that cannot keep them
   * between transactions (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements?: boolean | undefined
}

type Queryable = Pick<pg.PoolClient, 'query'>

/** Opens (and migrates) the journal; a database that cannot be reached or migrated is a ConfigError. */
export async function openPostgresJournal({
  url,
  maxConnections = 10,
  connectTimeoutMs = 5_000,
  staleClaimMs = 120_000,
  instanceId,
  preparedStatements = true,
}: OpenPostgresJournalParameters): Promise<Journal> {
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    connectionTimeoutMillis: connectTimeoutMs,
    types,
  })
  // An idle connection the server drops is an event, not a crash.
  pool.on('error', () => {})
  let closed = false
  try {
    await migrate(pool)
  } catch (err) {
    await pool.end().catch(() => {})
    throw new ConfigError([
      `DATABASE_URL: cannot open the execution journal at ${redactUrl(url)}: ${err instanceof Error ? err.message : String(err)}`,
    ])
  }

  // Claims written under this INSTANCE_ID before this process opened the journal were left by a
  // process of the same id that died before signing (a worker its primary started again, a gateway
  // restarted under its id): this one has claimed nothing yet. Given back now, their intents are
  // claimed again at once (a request waiting on one takes it over); left, they held their intents
  // for staleClaimMs, since the instance's heartbeat, renewed by this process, never lapses.
  if (instanceId)
    await pool
      .query(
        `WITH gone AS (DELETE FROM executions WHERE instance_id = $1 AND state = 'claimed' RETURNING id) DELETE FROM idempotency_keys WHERE execution_id IN (SELECT id FROM gone)`,
        [instanceId],
      )
      .catch(() => {}) // unreachable now: staleClaimMs still gives them back

  const statements = preparedStatements ? createStatementNames() : undefined
  /** Runs a query; a database that cannot be reached becomes StorageUnavailableError (503), nothing else changes. */
  const run = async <R extends pg.QueryResultRow = Row>(
    text: string,
    values: unknown[] = [],
    on: Queryable = pool,
  ): Promise<pg.QueryResult<R>> => {
    const ask = () => {
      const name = values.length > 0 ? statements?.nameOf(text) : undefined
      return name ? on.query<R>({ name, text, values }) : on.query<R>(text, values)
    }
    try {
      return await ask()
    } catch (err) {
      // Outside a transaction, once more under new names (inside one, transaction() does it).
      if (on === pool && statements?.renewedFor(err)) {
        try {
          return await ask()
        } catch (again) {
          throw toStorageError(again)
        }
      }
      throw toStorageError(err)
    }
  }
  const transaction = async <T>(work: (client: Queryable) => Promise<T>): Promise<T> => {
    for (let tries = 0; ; tries++) {
      let client: pg.PoolClient
      try {
        client = await pool.connect()
      } catch (err) {
        throw toStorageError(err)
      }
      try {
        await run('BEGIN', [], client)
        const result = await work(client)
        await run('COMMIT', [], client)
        return result
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        // Rolled back whole: asked again under new names, once.
        if (tries === 0 && statements?.renewedFor(err)) continue
        throw err
      } finally {
        client.release()
      }
    }
  }
  const one = async (text: string, values: unknown[], on?: Queryable) => (await run(text, values, on)).rows[0]
  const byId = async (id: number, on?: Queryable) =>
    fromRow(toRow((await one('SELECT * FROM executions WHERE id = $1', [id], on))!))
  const all = async (text: string, values: unknown[] = []) =>
    (await run(text, values)).rows.map((r) => fromRow(toRow(r)))

  async function claim(
    chainId: string,
    intentHash: Hex,
    intent: Intent,
    chainInstance: string | null,
    apiKeyId: string | null,
    on: Queryable = pool,
  ): Promise<Claim> {
    const sender = senderKey(intent)
    const nonce = intent.nonce.toString()
    // The unique indexes decide between instances: a conflicting insert does nothing, and the holder is read.
    for (let tries = 0; tries < 5; tries++) {
      const now = Date.now()
      const inserted = await one(
        `INSERT INTO executions (chain_id, intent_hash, attempt, sender, intent_nonce, intent, state, status, chain_instance, created_at, updated_at, instance_id, api_key_id)
         VALUES ($1, $2, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM executions WHERE chain_id = $1 AND intent_hash = $2), $3, $4, $5, 'claimed', $6, $7, $8, $8, $9, $10)
         ON CONFLICT DO NOTHING RETURNING *`,
        [
          chainId,
          intentHash,
          sender,
          nonce,
          serializeIntent(intent),
          Status.SUBMITTED,
          chainInstance,
          now,
          instanceId ?? null,
          apiKeyId,
        ],
        on,
      )
      if (inserted) {
        // A reverted attempt holds the hash (one outcome per intent) without holding the unique
        // index (a revert uses no nonce). Read after the insert, so that an attempt that turned
        // reverted after the insert's snapshot and before its index check is seen too.
        const reverted = await one(
          `SELECT * FROM executions WHERE intent_hash = $1 AND chain_id = $2 AND state = 'reverted' ORDER BY id DESC LIMIT 1`,
          [intentHash, chainId],
          on,
        )
        if (!reverted) return { ok: true, record: fromRow(toRow(inserted)) }
        await run(`DELETE FROM executions WHERE id = $1 AND state = 'claimed'`, [inserted.id], on)
        return { ok: false, holder: fromRow(toRow(reverted)) }
      }
      const held = await one(
        `SELECT e.*, EXISTS (SELECT 1 FROM gateway_instances g WHERE g.instance_id = e.instance_id AND g.expires_at <= now())
                     AND NOT EXISTS (SELECT 1 FROM gateway_instances g WHERE g.instance_id = e.instance_id AND g.expires_at > now()) AS orphaned
         FROM executions e WHERE chain_id = $1 AND (intent_hash = $2 OR (sender = $3 AND intent_nonce = $4)) AND ${holding} ORDER BY id LIMIT 1`,
        [chainId, intentHash, sender, nonce],
        on,
      )
      // A claim lives through preflight only (seconds, a minute with a settlement); one this old,
      // or of an instance known dead, was left by a gateway that died before signing.
      if (
        held?.state === 'claimed' &&
        ((held as { orphaned?: boolean }).orphaned === true || Number(held.updated_at) < now - staleClaimMs)
      ) {
        // Its Idempotency-Key goes with it (a keyed claim taking it over records the key again).
        await run(
          `WITH gone AS (DELETE FROM executions WHERE id = $1 AND state = 'claimed' AND updated_at = $2 RETURNING id) DELETE FROM idempotency_keys WHERE execution_id IN (SELECT id FROM gone)`,
          [held.id, held.updated_at],
          on,
        )
        continue
      }
      if (held) return { ok: false, holder: fromRow(toRow(held)) }
      // The conflict was an attempt number taken by a claim released since: try again.
    }
    throw new StorageUnavailableError('The journal could not claim the intent (contention); try again')
  }

  // Claims whose release the database did not answer, given back once it answers again. Only a
  // claim that signed nothing is released (the request that held it gave up on it), and only while
  // still `claimed`: a claim taken over since (a new row) or signed is never touched.
  const unreleased = new Set<number>()
  let releaseRetry: ReturnType<typeof setTimeout> | undefined
  function releaseLater(id: number) {
    if (unreleased.size >= 10_000) return // the stale-claim takeover still frees them
    unreleased.add(id)
    releaseRetry ??= setTimeout(retryReleases, 1_000).unref()
  }
  async function retryReleases() {
    releaseRetry = undefined
    for (const id of [...unreleased]) {
      if (closed) return
      try {
        await run(
          `WITH gone AS (DELETE FROM executions WHERE id = $1 AND state = 'claimed' RETURNING id) DELETE FROM idempotency_keys WHERE execution_id IN (SELECT id FROM gone)`,
          [id],
        )
        unreleased.delete(id)
      } catch {
        break // still unreachable: try again in a second
      }
    }
    if (unreleased.size > 0 && !closed) releaseRetry = setTimeout(retryReleases, 1_000).unref()
  }

  /**
   * A claim with its Idempotency-Key, in one transaction: the claim, then the key, whose primary
   * key decides between instances racing with one key (the second waits for the first's commit,
   * then finds its row). A key recorded for another request rolls the claim back: nothing of it
   * was ever visible. An expired key is free again; a key recorded by an earlier attempt of the
   * same intent stays with that attempt.
   */
  async function claimWithKey(
    chainId: string,
    intentHash: Hex,
    intent: Intent,
    chainInstance: string | null,
    apiKeyId: string | null,
    key: IdempotencyKeyClaim,
  ): Promise<Claim> {
    return transaction(async (client) => {
      const claimed = await claim(chainId, intentHash, intent, chainInstance, apiKeyId, client)
      if (!claimed.ok) return claimed
      const now = Date.now()
      const recordedNow = await one(
        `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, chain_id, intent_hash, execution_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (scope, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, chain_id = EXCLUDED.chain_id, intent_hash = EXCLUDED.intent_hash,
           execution_id = EXCLUDED.execution_id, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
         RETURNING scope`,
        [key.scope, key.key, key.fingerprint, chainId, intentHash, claimed.record.id, now, key.expiresAt.getTime()],
        client,
      )
      if (recordedNow) return claimed
      const row = await one(
        `SELECT * FROM idempotency_keys WHERE scope = $1 AND idem_key = $2`,
        [key.scope, key.key],
        client,
      )
      const recorded = fromIdempotencyKeyRow(row as unknown as IdempotencyKeyRow)
      if (!isSameRequest(recorded, key, chainId, intentHash)) throw new IdempotencyKeyReusedError(recorded)
      return claimed
    })
  }

  const settleRow = async (
    id: number,
    fromState: string,
    txId: string | null,
    s: Settlement,
    now: number,
    on?: Queryable,
  ) =>
    (
      await run(
        `UPDATE executions SET state = $1, status = $2, block_number = $3, block_hash = $4, final = $5, gas_used = $6, return_data = $7, detail = $8, updated_at = $9
         WHERE id = $10 AND state = $11 AND tx_id IS NOT DISTINCT FROM $12`,
        [
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
        ],
        on,
      )
    ).rowCount === 1
  const markReplaced = async (id: number, detail: string, now: number, on: Queryable) =>
    (
      await run(
        `UPDATE executions SET state = 'dropped', status = $1, detail = $2, final = 1, updated_at = $3 WHERE id = $4 AND state = 'pending'`,
        [Status.GATEWAY_FAILURE, detail, now, id],
        on,
      )
    ).rowCount === 1

  // The one-call statement of a signed transaction (a batch's call that it could not answer). A
  // bundle's bytes were written before (writeBundles), once.
  const signRow = async (id: number, tx: SignedExecution, now: number) =>
    (
      await run(
        `UPDATE executions AS e SET state = 'pending', relayer = $1, tx_id = $2, tx_bytes = $3, tx_details = $4, bundle_index = $9,
           signed_seq = nextval('executions_signed_seq'), updated_at = $5
         WHERE id = $6 AND state IN ('claimed', 'pending') AND ${leaseHeld('$7::bigint', 'e.chain_id', '$1', '$8')}`,
        [
          tx.relayer,
          tx.id,
          tx.bundle ? null : tx.bytes,
          JSON.stringify(tx.details),
          now,
          id,
          tx.leaseEpoch ?? null,
          instanceId ?? null,
          tx.bundle?.index ?? null,
        ],
      )
    ).rowCount === 1
  // Bundles' bytes, each once (a bundle's calls are recorded in one turn, or several): before the records that name them.
  const writeBundles = async (bundles: { chainId: string; tx: SignedExecution; now: number }[], on?: Queryable) => {
    if (bundles.length === 0) return
    await run(
      `INSERT INTO transactions (chain_id, tx_id, relayer, bytes, created_at)
       SELECT chain_id, tx_id, relayer, decode(bytes, 'base64'), created_at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
         AS v(chain_id, tx_id, relayer, bytes, created_at)
       ON CONFLICT DO NOTHING`,
      [
        bundles.map((b) => b.chainId),
        bundles.map((b) => b.tx.id),
        bundles.map((b) => b.tx.relayer),
        bundles.map((b) => b.tx.bytes),
        bundles.map((b) => b.now),
      ],
      on,
    )
  }
  // An execute's claim, signed transaction, settlement and first read: one statement for a turn's calls.
  const batches = createJournalBatches({
    run: (text, values) => run<Row>(text, values),
    record: (row) => fromRow(toRow(row)),
    instanceId: instanceId ?? null,
    claimOne: (c) => claim(c.chainId, c.intentHash, c.intent, c.chainInstance, c.apiKeyId),
    signOne: (c) => signRow(c.id, c.tx, c.now),
    writeBundles: (bundles) => writeBundles(bundles),
    settleOne: (c) => settleRow(c.id, 'pending', c.txId, c.s, c.now),
  })

  const payments = createPostgresPaymentLedger({ query: (text, values) => run(text, values) })
  const webhooks = createPostgresWebhookOutbox({ query: (text, values) => run(text, values) })
  return {
    path: redactUrl(url),
    backend: 'postgres',
    dbSystem: 'postgresql',
    payments,
    webhooks,
    ops: createPostgresOpsSwitchStore({ query: (text, values) => run(text, values) }),
    claim: ({ chainId, intentHash, intent, chainInstance, apiKeyId, idempotencyKey }) =>
      idempotencyKey
        ? claimWithKey(chainId, intentHash, intent, chainInstance ?? null, apiKeyId ?? null, idempotencyKey)
        : batches.claim({
            chainId,
            intentHash,
            intent,
            chainInstance: chainInstance ?? null,
            apiKeyId: apiKeyId ?? null,
          }),
    async idempotencyKey(scope, key) {
      const row = await one(`SELECT * FROM idempotency_keys WHERE scope = $1 AND idem_key = $2 AND expires_at > $3`, [
        scope,
        key,
        Date.now(),
      ])
      return row && fromIdempotencyKeyRow(row as unknown as IdempotencyKeyRow)
    },
    async release(record) {
      // The claim and the Idempotency-Key it recorded, in one statement.
      try {
        await run(
          `WITH gone AS (DELETE FROM executions WHERE id = $1 AND state IN ('claimed', 'pending') RETURNING id) DELETE FROM idempotency_keys WHERE execution_id IN (SELECT id FROM gone)`,
          [record.id],
        )
      } catch (err) {
        // The database did not answer (a cut, a restart): the claim would hold its intent until it
        // is stale (staleClaimMs) while this instance lives. Given back as soon as it answers again.
        if (record.state === 'claimed') releaseLater(record.id)
        throw err
      }
    },
    async withdraw(record) {
      // The claim and the Idempotency-Key it recorded, in one statement (as release).
      const { rows } = await run<{ id: number }>(
        `WITH gone AS (DELETE FROM executions WHERE id = $1 AND state = 'claimed' RETURNING id), keys AS (DELETE FROM idempotency_keys WHERE execution_id IN (SELECT id FROM gone)) SELECT id FROM gone`,
        [record.id],
      )
      return rows.length === 1
    },
    async recordSigned(record, tx) {
      const now = Date.now()
      // Committed (synchronous_commit) before it resolves: the broadcast comes after.
      if (!(await batches.sign({ id: record.id, chainId: record.chainId, tx, now }))) {
        // Withdrawn by its creator (MCP tasks/cancel) between the claim and the signature.
        const still = await run(`SELECT 1 FROM executions WHERE id = $1`, [record.id])
        if (still.rowCount === 0) throw new ClaimWithdrawnError(record.id)
        if (tx.leaseEpoch !== undefined) {
          const lease = await run(
            `SELECT 1 FROM relayer_leases WHERE chain_id = $1 AND relayer = $2 AND instance_id = $3 AND epoch = $4`,
            [record.chainId, tx.relayer, instanceId ?? null, tx.leaseEpoch],
          )
          if (lease.rowCount === 0) throw new RelayerLeaseMovedError(record.chainId, tx.relayer, tx.leaseEpoch)
        }
        throw new Error(`journal record ${record.id} is no longer open for a transaction`)
      }
      Object.assign(record, { state: 'pending', transaction: storedAs(tx), updatedAt: new Date(now) })
    },
    async settle(record, s) {
      if (closed) return false // a watch that outlived shutdown: reconciliation settles it
      const now = Date.now()
      if (s.transactionId !== undefined && s.transactionId !== record.transaction?.id) {
        // An earlier attempt's transaction was mined: that attempt takes the outcome, the record is replaced.
        const settled = await transaction(async (client) => {
          const earlier = await one(
            'SELECT * FROM executions WHERE chain_id = $1 AND intent_hash = $2 AND tx_id = $3 FOR UPDATE',
            [record.chainId, record.intentHash, s.transactionId],
            client,
          )
          if (!earlier || Number(earlier.id) >= record.id || earlier.state !== 'dropped') return false
          if (
            !(await markReplaced(
              record.id,
              `replaced: the transaction of attempt ${earlier.attempt} (${earlier.tx_id}) was mined instead`,
              now,
              client,
            ))
          )
            return false
          return settleRow(Number(earlier.id), 'dropped', earlier.tx_id as string, s, now, client)
        })
        if (settled) Object.assign(record, await byId(record.id))
        return settled
      }
      if (!(await batches.settle({ id: record.id, txId: record.transaction?.id ?? null, s, now }))) return false
      const { transactionId: _, ...fields } = s
      Object.assign(record, fields, { blockHash: s.blockHash, final: s.final !== false, updatedAt: new Date(now) })
      return true
    },
    async replace(record, tx, detail) {
      const now = Date.now()
      const id = await transaction(async (client) => {
        if (!(await markReplaced(record.id, detail, now, client)))
          throw new Error(`journal record ${record.id} is no longer pending: it cannot be replaced`)
        if (tx.bundle) await writeBundles([{ chainId: record.chainId, tx, now }], client)
        const row = await one(
          `INSERT INTO executions (chain_id, intent_hash, attempt, sender, intent_nonce, intent, state, status, chain_instance, api_key_id, relayer, tx_id, tx_bytes, tx_details,
                                   bundle_index, signed_seq, replaces, created_at, updated_at)
           SELECT chain_id, intent_hash, (SELECT MAX(attempt) + 1 FROM executions e WHERE e.chain_id = o.chain_id AND e.intent_hash = o.intent_hash), sender, intent_nonce, intent,
                  'pending', status, chain_instance, api_key_id, $1, $2, $3, $4, $7, nextval('executions_signed_seq'), id, $5, $5
           FROM executions o WHERE id = $6 RETURNING id`,
          [
            tx.relayer,
            tx.id,
            tx.bundle ? null : tx.bytes,
            JSON.stringify(tx.details),
            now,
            record.id,
            tx.bundle?.index ?? null,
          ],
          client,
        )
        return Number(row!.id)
      })
      Object.assign(record, await byId(record.id))
      return byId(id)
    },
    async transactionBytes(chainId, transactionId) {
      const { rows } = await run<{ bytes: Buffer }>(
        `SELECT bytes FROM transactions WHERE chain_id = $1 AND tx_id = $2`,
        [chainId, transactionId],
      )
      return rows[0]?.bytes.toString('base64')
    },
    async replaced(record) {
      const rows = await all(
        `WITH RECURSIVE chain(id) AS (SELECT replaces FROM executions WHERE id = $1 UNION ALL SELECT e.replaces FROM executions e JOIN chain c ON e.id = c.id WHERE e.replaces IS NOT NULL)
         SELECT executions.* FROM executions JOIN chain ON executions.id = chain.id ORDER BY executions.id`,
        [record.id],
      )
      return rows.flatMap((r) => r.transaction ?? [])
    },
    unconfirmed: (filter) =>
      filter
        ? all(
            `SELECT * FROM executions WHERE state IN ('mined', 'reverted') AND final = 0 AND chain_id = $1 ORDER BY id`,
            [filter.chainId],
          )
        : all(`SELECT * FROM executions WHERE state IN ('mined', 'reverted') AND final = 0 ORDER BY id`),
    async confirm(record) {
      if (closed) return false
      const now = Date.now()
      if (
        (
          await run(
            `UPDATE executions SET final = 1, updated_at = $1 WHERE id = $2 AND state IN ('mined', 'reverted') AND final = 0`,
            [now, record.id],
          )
        ).rowCount !== 1
      )
        return false
      Object.assign(record, { final: true, updatedAt: new Date(now) })
      return true
    },
    async reopen(record, detail) {
      if (closed) return false
      const { rowCount } = await run(
        `UPDATE executions SET state = 'pending', status = $1, block_number = NULL, block_hash = NULL, gas_used = NULL, return_data = NULL, final = 0, detail = $2, updated_at = $3
         WHERE id = $4 AND state IN ('mined', 'reverted')`,
        [Status.SUBMITTED, detail, Date.now(), record.id],
      )
      if (rowCount !== 1) return false
      Object.assign(record, await byId(record.id))
      return true
    },
    async retire(record, detail) {
      if (closed) return false
      const { rowCount } = await run(
        `UPDATE executions SET state = 'dropped', status = $1, detail = $2, final = 1, updated_at = $3 WHERE id = $4 AND state IN ('pending', 'mined')`,
        [Status.GATEWAY_FAILURE, detail, Date.now(), record.id],
      )
      if (rowCount !== 1) return false
      Object.assign(record, await byId(record.id))
      return true
    },
    async rebind(record, chainInstance) {
      await run('UPDATE executions SET chain_instance = $1 WHERE id = $2', [chainInstance, record.id])
      record.chainInstance = chainInstance
    },
    otherInstances: (chainId, chainInstance) =>
      all(
        // Two ranges of executions_instance, below and above this instance (NULL, no instance, is in neither).
        `SELECT * FROM executions WHERE chain_id = $1 AND state IN ('pending', 'mined') AND (chain_instance < $2 OR chain_instance > $2) ORDER BY signed_seq, id`,
        [chainId, chainInstance],
      ),
    async attempts(chainId, intentHash) {
      return all('SELECT * FROM executions WHERE chain_id = $1 AND intent_hash = $2 ORDER BY attempt', [
        chainId,
        intentHash,
      ])
    },
    async attempt(chainId, intentHash, attempt) {
      const row = await one('SELECT * FROM executions WHERE chain_id = $1 AND intent_hash = $2 AND attempt = $3', [
        chainId,
        intentHash,
        attempt,
      ])
      return row && fromRow(toRow(row))
    },
    async get(intentHash, chainId): Promise<ExecutionRecord | undefined> {
      // The live attempt first: an attempt that replaced another may be dropped while the one it replaced was mined.
      const row = chainId
        ? await batches.latest({ chainId, intentHash })
        : await one(
            `SELECT * FROM executions WHERE intent_hash = $1 ORDER BY (${holding}) DESC, updated_at DESC, id DESC LIMIT 1`,
            [intentHash],
          )
      return row && fromRow(toRow(row))
    },
    pending: (filter) =>
      !filter
        ? all(`SELECT * FROM executions WHERE state = 'pending' ORDER BY signed_seq`)
        : filter.relayer === undefined
          ? all(`SELECT * FROM executions WHERE state = 'pending' AND chain_id = $1 ORDER BY signed_seq`, [
              filter.chainId,
            ])
          : all(
              `SELECT * FROM executions WHERE state = 'pending' AND chain_id = $1 AND relayer = $2 ORDER BY signed_seq`,
              [filter.chainId, filter.relayer],
            ),
    async prune(before) {
      const cutoff = before.getTime()
      const executions =
        (await run(`DELETE FROM executions WHERE ${prunable('executions', '$1')}`, [cutoff])).rowCount ?? 0
      const payments =
        (await run(`DELETE FROM x402_payments WHERE state IN ('consumed', 'released') AND updated_at < $1`, [cutoff]))
          .rowCount ?? 0
      const webhooks =
        (await run(`DELETE FROM webhook_outbox WHERE ${prunableWebhooks('$1', '$1')}`, [cutoff])).rowCount ?? 0
      await run(`DELETE FROM idempotency_keys WHERE expires_at <= $1`, [Date.now()])
      // A bundle none of whose records is left.
      await run(
        `DELETE FROM transactions t WHERE created_at < $1 AND NOT EXISTS
           (SELECT 1 FROM executions e WHERE e.chain_id = t.chain_id AND e.tx_id = t.tx_id AND e.bundle_index IS NOT NULL)`,
        [cutoff],
      )
      return { executions, payments, webhooks }
    },
    async changesAfter(position, limit) {
      // Below the horizon (the oldest transaction still running, server-wide) every transaction has ended: nothing commits there later.
      const { rows } = await run(
        `SELECT * FROM executions WHERE (change_xid, id) > ($1, $2) AND change_xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint ORDER BY change_xid, id LIMIT $3`,
        [position.change, position.id, limit],
      )
      const last = rows.at(-1) as { change_xid: number; id: number } | undefined
      return {
        records: rows.map((r) => fromRow(toRow(r))),
        position: last ? { change: Number(last.change_xid), id: Number(last.id) } : position,
      }
    },
    async changePositionAt(since) {
      const { rows } = await run<{ change_xid: number; id: number; horizon: number }>(
        `SELECT e.change_xid, e.id, h.horizon FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon) h
         LEFT JOIN LATERAL (SELECT change_xid, id FROM executions WHERE updated_at >= $1 ORDER BY change_xid, id LIMIT 1) e ON true`,
        [since],
      )
      const { change_xid, id, horizon } = rows[0]!
      // Never past the horizon: a transaction still running commits its changes there.
      if (change_xid === null || Number(change_xid) >= Number(horizon)) return { change: Number(horizon), id: 0 }
      return { change: Number(change_xid), id: Number(id) - 1 }
    },
    pendingCount: async () =>
      Number((await run<{ n: number }>(`SELECT COUNT(*) AS n FROM executions WHERE state = 'pending'`)).rows[0]!.n),
    async backup() {
      throw new Error(
        "a PostgreSQL journal is backed up with the database (pg_dump, or the server's own backups), not by the gateway",
      )
    },
    async ping() {
      await run('SELECT 1')
    },
    async close() {
      if (closed) return
      closed = true
      clearTimeout(releaseRetry)
      await pool.end()
    },
  }
}

/** The row as the SQLite shape fromRow reads (JSONB details come back parsed). */
function toRow(row: pg.QueryResultRow): Row {
  return {
    ...(row as Row),
    tx_details:
      row.tx_details === null || typeof row.tx_details === 'string' ? row.tx_details : JSON.stringify(row.tx_details),
  }
}

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [migrationLock])
    await client.query(
      'CREATE TABLE IF NOT EXISTS journal_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    )
    const { rows } = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM journal_migrations')
    const version = rows[0]?.v ?? 0
    if (version > migrations.length) {
      throw new Error(
        `it has journal schema version ${version}, newer than this gateway's ${migrations.length}: run a gateway at least as new as the one that wrote it`,
      )
    }
    for (let v = version; v < migrations.length; v++) {
      await client.query('BEGIN')
      try {
        await client.query(migrations[v]!)
        await client.query('INSERT INTO journal_migrations (version) VALUES ($1)', [v + 1])
        await client.query('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK')
        throw err
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [migrationLock]).catch(() => {})
    client.release()
  }
}

/** Connection failures become StorageUnavailableError; the database's own refusals stay as they are. */
function toStorageError(err: unknown): unknown {
  const code = (err as { code?: unknown }).code
  // SQLSTATE classes 08 (connection), 57P (shutdown), 53 (resources); Node's socket errors.
  if (
    typeof code === 'string' &&
    (/^(08|57P|53)/.test(code) || /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NOTFOUND)$/.test(code))
  ) {
    return new StorageUnavailableError('The journal database is unreachable', { cause: err })
  }
  if (
    err instanceof Error &&
    /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|Cannot use a pool after calling end/i.test(
      err.message,
    )
  ) {
    return new StorageUnavailableError('The journal database is unreachable', { cause: err })
  }
  return err
}

/**
 * Names for prepared statements: a text asked a second time gets a name (its hash), and the server
 * then parses and plans it once per connection instead of at every call (the bench: ~0.9 ms less
 * of the server's CPU per execute, about half). At most 256 names, so a text that varies by call
 * (a literal in it) cannot fill every connection with statements. A statement prepared before a
 * migration (another instance's, in a rolling upgrade) changed the columns it returns fails once
 * with "cached plan must not change result type": renewedFor gives every text a new name, and the
 * caller asks again.
 */
function createStatementNames() {
  const maxNames = 256
  let generation = 0
  const names = new Map<string, string | null>()
  return {
    nameOf(text: string): string | undefined {
      const known = names.get(text)
      if (typeof known === 'string') return known
      if (known === null) {
        const name = `ig${generation}_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`
        names.set(text, name)
        return name
      }
      // Seen for the first time: unnamed now, named from the next time.
      if (names.size < maxNames) names.set(text, null)
      return undefined
    },
    renewedFor(err: unknown): boolean {
      if (
        (err as { code?: unknown }).code !== '0A000' ||
        !/cached plan must not change result type/.test(String((err as Error).message))
      )
        return false
      generation++
      names.clear()
      return true
    },
  }
}
