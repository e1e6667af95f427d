// The payment ledger on PostgreSQL, in the journal's database. The unique keys (authorization,
// payment id) decide between requests and between gateway instances: of two reservations of one
// authorization, however close and wherever they run, exactly one inserts its row.
import type pg from 'pg'
import type {
  NewReservation,
  PaymentLedger,
  PaymentState,
  Reservation,
  StoredAnswer,
} from '../../ports/paymentLedger.ts'
import { normalizeKey } from '../normalizeKey.ts'
import { type PaymentRow, toPaymentRecord } from '../paymentRow.ts'

type Row = PaymentRow

export type CreatePostgresPaymentLedgerParameters = {
  /** Runs one statement (the journal's pool, with its unreachable-database handling). */
  query(text: string, values: unknown[]): Promise<pg.QueryResult>
  now?: () => number
}

export function createPostgresPaymentLedger({
  query,
  now = () => Date.now(),
}: CreatePostgresPaymentLedgerParameters): PaymentLedger {
  const norm = normalizeKey
  const one = async (text: string, values: unknown[]) => (await query(text, values)).rows[0] as Row | undefined
  const many = async (text: string, values: unknown[] = []) =>
    ((await query(text, values)).rows as Row[]).map(toPaymentRecord)
  const byAuthorization = (k: ReturnType<typeof norm>) =>
    one('SELECT * FROM x402_payments WHERE network = $1 AND asset = $2 AND payer = $3 AND nonce = $4', [
      k.network,
      k.asset,
      k.payer,
      k.nonce,
    ])
  const byPaymentId = (id: string) => one('SELECT * FROM x402_payments WHERE payment_id = $1', [id])
  const update = (id: number, state: PaymentState, transaction: string | null, reason: string | null) =>
    // Only forward: reserved → settled or released, settled → consumed (a late resolver never undoes a request's own step).
    query(
      'UPDATE x402_payments SET state = $1, transaction_hash = COALESCE($2, transaction_hash), reason = COALESCE($3, reason), updated_at = $4 WHERE id = $5 AND state = $6',
      [state, transaction, reason, now(), id, state === 'consumed' ? 'settled' : 'reserved'],
    )

  async function reserve(r: NewReservation): Promise<Reservation> {
    const key = norm(r)
    const sameAuthorization = (row: Row) =>
      row.network === key.network && row.asset === key.asset && row.payer === key.payer && row.nonce === key.nonce
    const idTaken = async (): Promise<Reservation | undefined> => {
      if (r.paymentId === undefined) return undefined
      const holder = await byPaymentId(r.paymentId)
      if (holder && !(holder.state === 'released' && sameAuthorization(holder)))
        return {
          kind: 'payment-id-taken',
          payment: toPaymentRecord(holder),
          samePayload: holder.payload_hash === r.payloadHash,
        }
      return undefined
    }
    const taken = await idTaken()
    if (taken) return taken
    const fields = [
      r.amount,
      r.payTo,
      r.paymentId ?? null,
      r.validBefore.toString(),
      r.payloadHash,
      r.route,
      r.chainId,
      r.intentHash.toLowerCase(),
      now(),
      r.transaction ?? null,
      r.settlementPayload ?? null,
    ]
    try {
      const existing = await byAuthorization(key)
      if (existing) {
        // Only a released row (never settled) is claimed again; the WHERE makes that a compare-and-set.
        const reclaimed =
          existing.state === 'released'
            ? await one(
                `UPDATE x402_payments SET state = 'reserved', amount = $1, pay_to = $2, payment_id = $3, valid_before = $4, payload_hash = $5, route = $6, chain_id = $7,
                 intent_hash = $8, transaction_hash = $10, settlement_payload = $11, reason = NULL, answer = NULL, pending_request = NULL, updated_at = $9 WHERE id = $12 AND state = 'released' RETURNING *`,
                [...fields, existing.id],
              )
            : undefined
        return reclaimed
          ? { kind: 'reserved', payment: toPaymentRecord(reclaimed) }
          : { kind: 'authorization-used', payment: toPaymentRecord((await byAuthorization(key)) ?? existing) }
      }
      const inserted = await one(
        `INSERT INTO x402_payments (amount, pay_to, payment_id, valid_before, payload_hash, route, chain_id, intent_hash, created_at, updated_at, transaction_hash, settlement_payload, network, asset, payer, nonce, state)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $14, $15, 'reserved') ON CONFLICT DO NOTHING RETURNING *`,
        [...fields, key.network, key.asset, key.payer, key.nonce],
      )
      if (inserted) return { kind: 'reserved', payment: toPaymentRecord(inserted) }
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err // only a unique key taken in between is an answer
    }
    // Another request (or instance) took the authorization or the payment id in between.
    const holder = await byAuthorization(key)
    if (holder) return { kind: 'authorization-used', payment: toPaymentRecord(holder) }
    const idHolder = await idTaken()
    if (idHolder) return idHolder
    return reserve(r)
  }

  return {
    reserve,
    async findByPaymentId(paymentId) {
      const row = await byPaymentId(paymentId)
      return row && toPaymentRecord(row)
    },
    async findByAuthorization(key) {
      const row = await byAuthorization(norm(key))
      return row && toPaymentRecord(row)
    },
    async creditFor(binding) {
      const row = await one(
        "SELECT * FROM x402_payments WHERE chain_id = $1 AND intent_hash = $2 AND route = $3 AND state = 'settled' ORDER BY id LIMIT 1",
        [binding.chainId, binding.intentHash.toLowerCase(), binding.route],
      )
      return row && toPaymentRecord(row)
    },
    async markSettled(id, transaction, reason) {
      await update(id, 'settled', transaction ?? null, reason ?? null)
    },
    async markReleased(id, reason) {
      await update(id, 'released', null, reason)
    },
    async markSettlementPending(id, transaction, reason, request) {
      await query(
        "UPDATE x402_payments SET transaction_hash = $1, reason = $2, pending_request = $3, updated_at = $4 WHERE id = $5 AND state = 'reserved'",
        [transaction, reason, request ? JSON.stringify(request) : null, now(), id],
      )
    },
    async takePendingRequest(id) {
      return (
        ((
          await query(
            'UPDATE x402_payments SET pending_request = NULL, updated_at = $1 WHERE id = $2 AND pending_request IS NOT NULL',
            [now(), id],
          )
        ).rowCount ?? 0) === 1
      )
    },
    async markConsumed(id) {
      await update(id, 'consumed', null, null)
    },
    async saveAnswer(id, answer: StoredAnswer) {
      await query('UPDATE x402_payments SET answer = $1, updated_at = $2 WHERE id = $3', [
        JSON.stringify(answer),
        now(),
        id,
      ])
    },
    unresolved: () => many("SELECT * FROM x402_payments WHERE state = 'reserved' ORDER BY id"),
    credits: () => many("SELECT * FROM x402_payments WHERE state = 'settled' ORDER BY id"),
    forIntent: (chainId, intentHash) =>
      many('SELECT * FROM x402_payments WHERE chain_id = $1 AND intent_hash = $2 ORDER BY id', [
        chainId,
        intentHash.toLowerCase(),
      ]),
    async keepSettlementPayload(id, payload) {
      await query('UPDATE x402_payments SET settlement_payload = $1, updated_at = $2 WHERE id = $3', [
        payload,
        now(),
        id,
      ])
    },
    async settlementPayloadOf(id) {
      const row = (await query('SELECT settlement_payload FROM x402_payments WHERE id = $1', [id])).rows[0] as
        | { settlement_payload: string | null }
        | undefined
      return row?.settlement_payload ?? undefined
    },
    async recordSettlementBlock(id, transaction, block) {
      await query(
        "UPDATE x402_payments SET transaction_hash = $1, settlement_block_number = $2, settlement_block_hash = $3, settlement_final = 0, updated_at = $4 WHERE id = $5 AND state IN ('reserved', 'settled', 'consumed')",
        [transaction, block ? block.number.toString() : null, block ? block.hash : null, now(), id],
      )
    },
    unfinalSettlements: (namespace) =>
      many(
        "SELECT * FROM x402_payments WHERE state IN ('settled', 'consumed') AND settlement_final = 0 AND network LIKE $1 ORDER BY id",
        [`${namespace}:%`],
      ),
    async markSettlementFinal(id, reason) {
      await query(
        "UPDATE x402_payments SET settlement_final = 1, reason = COALESCE($1, reason), updated_at = $2 WHERE id = $3 AND state IN ('settled', 'consumed')",
        [reason ?? null, now(), id],
      )
    },
    async markReorged(id, reason) {
      const result = await query(
        "UPDATE x402_payments SET state = 'reorged', reason = $1, pending_request = NULL, updated_at = $2 WHERE id = $3 AND state IN ('settled', 'consumed')",
        [reason, now(), id],
      )
      return (result.rowCount ?? 0) === 1
    },
  }
}
