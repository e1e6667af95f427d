// A payment as both ledgers store it (the same columns), and its conversion to a PaymentRecord.
import type { Address, Hex } from 'viem'
import type { PaymentRecord, PaymentState, PendingRequest, StoredAnswer } from '../ports/paymentLedger.ts'

export type PaymentRow = {
  id: number
  network: string
  asset: string
  payer: string
  nonce: string
  amount: string
  pay_to: string
  payment_id: string | null
  valid_before: string | null
  payload_hash: string
  route: string
  chain_id: string
  intent_hash: string
  state: PaymentState
  transaction_hash: string | null
  reason: string | null
  answer: string | null
  /** Absent in rows read before the column existed. */
  pending_request?: string | null
  settlement_block_number?: string | null
  settlement_block_hash?: string | null
  settlement_final?: number | null
  settlement_payload?: string | null
  created_at: number
  updated_at: number
}

export function toPaymentRecord(row: PaymentRow): PaymentRecord {
  return {
    id: Number(row.id),
    network: row.network,
    asset: row.asset as Address,
    payer: row.payer as Address,
    nonce: row.nonce as Hex,
    amount: row.amount,
    payTo: row.pay_to as Address,
    paymentId: row.payment_id ?? undefined,
    validBefore: row.valid_before === null ? undefined : BigInt(row.valid_before),
    payloadHash: row.payload_hash as Hex,
    route: row.route,
    chainId: row.chain_id,
    intentHash: row.intent_hash as Hex,
    state: row.state,
    transaction: row.transaction_hash ?? undefined,
    settlementBlock:
      row.settlement_block_number != null && row.settlement_block_hash != null
        ? { number: BigInt(row.settlement_block_number), hash: row.settlement_block_hash as Hex }
        : undefined,
    settlementFinal: row.settlement_final == null || Number(row.settlement_final) === 1,
    reason: row.reason ?? undefined,
    answer: row.answer ? (JSON.parse(row.answer) as StoredAnswer) : undefined,
    pendingRequest: row.pending_request ? (JSON.parse(row.pending_request) as PendingRequest) : undefined,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  }
}
