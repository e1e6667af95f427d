// The payment ledger on SQLite, in the database handle it is given (the journal's, in the
// gateway). Every claim is one synchronous transaction: it runs to the end before any other
// request's code does, and the unique keys refuse a second holder across processes too.
import type Database from 'better-sqlite3'
import type {
  NewReservation,
  PaymentBinding,
  PaymentLedger,
  PaymentState,
  Reservation,
  StoredAnswer,
} from '../../ports/paymentLedger.ts'
import { normalizeKey } from '../normalizeKey.ts'
import { type PaymentRow, toPaymentRecord } from '../paymentRow.ts'

type Row = PaymentRow

/** The payments table as this code writes it (migration 8 rebuilds an older one into it). */
export function paymentsTableDdl(table = 'x402_payments'): string {
  return `
CREATE TABLE IF NOT EXISTS ${table} (
  id INTEGER PRIMARY KEY,
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
  state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'consumed', 'released', 'reorged')),
  transaction_hash TEXT,
  reason TEXT,
  answer TEXT,
  pending_request TEXT,
  settlement_block_number TEXT,
  settlement_block_hash TEXT,
  settlement_final INTEGER NOT NULL DEFAULT 0,
  settlement_payload TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (network, asset, payer, nonce)
);`
}

/** The payments table's indexes. */
export const paymentsIndexDdl = `
CREATE INDEX IF NOT EXISTS x402_payments_binding ON x402_payments (chain_id, intent_hash, route, state);
CREATE INDEX IF NOT EXISTS x402_payments_state ON x402_payments (state);
CREATE INDEX IF NOT EXISTS x402_payments_unfinal ON x402_payments (id) WHERE state IN ('settled', 'consumed') AND settlement_final = 0;
`

export function createSqlitePaymentLedger({
  db,
  now = () => Date.now(),
}: {
  db: Database.Database
  now?: () => number
}): PaymentLedger {
  db.exec(paymentsTableDdl())
  // Ledgers written before valid_before was kept get the column (their rows have none).
  if (!(db.pragma('table_info(x402_payments)') as Array<{ name: string }>).some((c) => c.name === 'valid_before'))
    db.exec('ALTER TABLE x402_payments ADD COLUMN valid_before TEXT')
  // And before a pending settlement's request was kept.
  if (!(db.pragma('table_info(x402_payments)') as Array<{ name: string }>).some((c) => c.name === 'pending_request'))
    db.exec('ALTER TABLE x402_payments ADD COLUMN pending_request TEXT')
  // A journal's older table was rebuilt by its migration 8; a bare database's is rebuilt here.
  if (!(db.pragma('table_info(x402_payments)') as Array<{ name: string }>).some((c) => c.name === 'settlement_final'))
    db.transaction(() => rebuildPaymentsTable(db)).immediate()
  db.exec(paymentsIndexDdl)

  const norm = normalizeKey

  const byId = db.prepare<[number], Row>('SELECT * FROM x402_payments WHERE id = ?')
  const byAuthorization = db.prepare<[string, string, string, string], Row>(
    'SELECT * FROM x402_payments WHERE network = ? AND asset = ? AND payer = ? AND nonce = ?',
  )
  const byPaymentId = db.prepare<[string], Row>('SELECT * FROM x402_payments WHERE payment_id = ?')
  const insert = db.prepare(
    `INSERT INTO x402_payments (network, asset, payer, nonce, amount, pay_to, payment_id, valid_before, payload_hash, route, chain_id, intent_hash, state, transaction_hash, settlement_payload, created_at, updated_at)
     VALUES (@network, @asset, @payer, @nonce, @amount, @payTo, @paymentId, @validBefore, @payloadHash, @route, @chainId, @intentHash, 'reserved', @transaction, @settlementPayload, @now, @now)`,
  )
  // Only a released row (never settled) is claimed again; the WHERE makes that a compare-and-set.
  const reclaim = db.prepare(
    `UPDATE x402_payments SET state = 'reserved', amount = @amount, pay_to = @payTo, payment_id = @paymentId, valid_before = @validBefore, payload_hash = @payloadHash,
       route = @route, chain_id = @chainId, intent_hash = @intentHash, transaction_hash = @transaction, settlement_payload = @settlementPayload, reason = NULL, answer = NULL, pending_request = NULL, updated_at = @now
     WHERE id = @id AND state = 'released'`,
  )
  const credit = db.prepare<[string, string, string], Row>(
    "SELECT * FROM x402_payments WHERE chain_id = ? AND intent_hash = ? AND route = ? AND state = 'settled' ORDER BY id LIMIT 1",
  )
  // Only forward: reserved → settled or released, settled → consumed (a late resolver never undoes a request's own step).
  const setState = db.prepare<[PaymentState, string | null, string | null, number, number, PaymentState]>(
    'UPDATE x402_payments SET state = ?, transaction_hash = COALESCE(?, transaction_hash), reason = COALESCE(?, reason), updated_at = ? WHERE id = ? AND state = ?',
  )
  const setPending = db.prepare<[string, string, string | null, number, number]>(
    "UPDATE x402_payments SET transaction_hash = ?, reason = ?, pending_request = ?, updated_at = ? WHERE id = ? AND state = 'reserved'",
  )
  const takePending = db.prepare<[number, number]>(
    'UPDATE x402_payments SET pending_request = NULL, updated_at = ? WHERE id = ? AND pending_request IS NOT NULL',
  )
  const setAnswer = db.prepare<[string, number, number]>(
    'UPDATE x402_payments SET answer = ?, updated_at = ? WHERE id = ?',
  )
  const reserved = db.prepare<[], Row>("SELECT * FROM x402_payments WHERE state = 'reserved' ORDER BY id")
  const settled = db.prepare<[], Row>("SELECT * FROM x402_payments WHERE state = 'settled' ORDER BY id")
  const forIntent = db.prepare<[string, string], Row>(
    'SELECT * FROM x402_payments WHERE chain_id = ? AND intent_hash = ? ORDER BY id',
  )
  const setPayload = db.prepare<[string, number, number]>(
    'UPDATE x402_payments SET settlement_payload = ?, updated_at = ? WHERE id = ?',
  )
  const payloadOf = db.prepare<[number], { settlement_payload: string | null }>(
    'SELECT settlement_payload FROM x402_payments WHERE id = ?',
  )
  const setBlock = db.prepare<[string, string | null, string | null, number, number]>(
    "UPDATE x402_payments SET transaction_hash = ?, settlement_block_number = ?, settlement_block_hash = ?, settlement_final = 0, updated_at = ? WHERE id = ? AND state IN ('reserved', 'settled', 'consumed')",
  )
  const unfinal = db.prepare<[string], Row>(
    "SELECT * FROM x402_payments WHERE state IN ('settled', 'consumed') AND settlement_final = 0 AND network LIKE ? ORDER BY id",
  )
  const setFinal = db.prepare<[string | null, number, number]>(
    "UPDATE x402_payments SET settlement_final = 1, reason = COALESCE(?, reason), updated_at = ? WHERE id = ? AND state IN ('settled', 'consumed')",
  )
  const setReorged = db.prepare<[string, number, number]>(
    "UPDATE x402_payments SET state = 'reorged', reason = ?, pending_request = NULL, updated_at = ? WHERE id = ? AND state IN ('settled', 'consumed')",
  )

  const reserveNow = db.transaction((r: NewReservation): Reservation => {
    const key = norm(r)
    const values = {
      ...key,
      amount: r.amount,
      payTo: r.payTo,
      paymentId: r.paymentId ?? null,
      validBefore: r.validBefore.toString(),
      payloadHash: r.payloadHash,
      route: r.route,
      chainId: r.chainId,
      intentHash: r.intentHash.toLowerCase(),
      transaction: r.transaction ?? null,
      settlementPayload: r.settlementPayload ?? null,
      now: now(),
    }
    const sameAuthorization = (row: Row) =>
      row.network === key.network && row.asset === key.asset && row.payer === key.payer && row.nonce === key.nonce
    if (r.paymentId !== undefined) {
      const holder = byPaymentId.get(r.paymentId)
      if (holder && !(holder.state === 'released' && sameAuthorization(holder))) {
        return {
          kind: 'payment-id-taken',
          payment: toPaymentRecord(holder),
          samePayload: holder.payload_hash === r.payloadHash,
        }
      }
    }
    const existing = byAuthorization.get(key.network, key.asset, key.payer, key.nonce)
    if (existing) {
      if (existing.state !== 'released' || reclaim.run({ ...values, id: existing.id }).changes !== 1) {
        return { kind: 'authorization-used', payment: toPaymentRecord(existing) }
      }
      return { kind: 'reserved', payment: toPaymentRecord(byId.get(existing.id)!) }
    }
    const { lastInsertRowid } = insert.run(values)
    return { kind: 'reserved', payment: toPaymentRecord(byId.get(Number(lastInsertRowid))!) }
  })

  const update = (id: number, state: PaymentState, transaction: string | null, reason: string | null) => {
    setState.run(state, transaction, reason, now(), id, state === 'consumed' ? 'settled' : 'reserved')
  }

  return {
    async reserve(reservation) {
      return reserveNow(reservation)
    },
    async findByPaymentId(paymentId) {
      const row = byPaymentId.get(paymentId)
      return row ? toPaymentRecord(row) : undefined
    },
    async findByAuthorization(key) {
      const k = norm(key)
      const row = byAuthorization.get(k.network, k.asset, k.payer, k.nonce)
      return row ? toPaymentRecord(row) : undefined
    },
    async creditFor(binding: PaymentBinding) {
      const row = credit.get(binding.chainId, binding.intentHash.toLowerCase(), binding.route)
      return row ? toPaymentRecord(row) : undefined
    },
    async markSettled(id, transaction, reason) {
      update(id, 'settled', transaction ?? null, reason ?? null)
    },
    async markReleased(id, reason) {
      update(id, 'released', null, reason)
    },
    async markSettlementPending(id, transaction, reason, request) {
      setPending.run(transaction, reason, request ? JSON.stringify(request) : null, now(), id)
    },
    async takePendingRequest(id) {
      return takePending.run(now(), id).changes === 1
    },
    async markConsumed(id) {
      update(id, 'consumed', null, null)
    },
    async saveAnswer(id, answer: StoredAnswer) {
      setAnswer.run(JSON.stringify(answer), now(), id)
    },
    async unresolved() {
      return reserved.all().map(toPaymentRecord)
    },
    async credits() {
      return settled.all().map(toPaymentRecord)
    },
    async forIntent(chainId, intentHash) {
      return forIntent.all(chainId, intentHash.toLowerCase()).map(toPaymentRecord)
    },
    async keepSettlementPayload(id, payload) {
      setPayload.run(payload, now(), id)
    },
    async settlementPayloadOf(id) {
      return payloadOf.get(id)?.settlement_payload ?? undefined
    },
    async recordSettlementBlock(id, transaction, block) {
      setBlock.run(transaction, block ? block.number.toString() : null, block ? block.hash : null, now(), id)
    },
    async unfinalSettlements(namespace) {
      return unfinal.all(`${namespace}:%`).map(toPaymentRecord)
    },
    async markSettlementFinal(id, reason) {
      setFinal.run(reason ?? null, now(), id)
    },
    async markReorged(id, reason) {
      return setReorged.run(reason, now(), id).changes === 1
    },
  }
}

/**
 * Rebuilds a payments table written before `reorged` and the settlement's block (SQLite cannot
 * change a CHECK in place): every row kept, each settlement written before counted final (it was
 * reported so). Journal migration 8, and a bare database's older table.
 */
export function rebuildPaymentsTable(db: Database.Database): void {
  const columns = (db.pragma('table_info(x402_payments)') as Array<{ name: string }>).map((c) => c.name)
  if (columns.length === 0) return
  const kept = columns.filter((c) => !c.startsWith('settlement_')).join(', ')
  db.exec(`
DROP TABLE IF EXISTS x402_payments_v8;
${paymentsTableDdl('x402_payments_v8')}
INSERT INTO x402_payments_v8 (${kept}, settlement_final) SELECT ${kept}, 1 FROM x402_payments;
DROP TABLE x402_payments;
ALTER TABLE x402_payments_v8 RENAME TO x402_payments;
${paymentsIndexDdl}`)
}
