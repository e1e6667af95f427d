// A journal record as both backends store it (one row per attempt, the same columns), and its
// conversion to an ExecutionRecord.
import type { Hex } from 'viem'
import type { SignedExecution } from '../ports/chainAdapter.ts'
import type { Intent } from '../ports/intent.ts'
import type { ExecutionRecord, JournalState } from '../ports/journal.ts'

/** The states that hold an intent and its (sender, nonce): at most one attempt of an intent in them (both backends' unique indexes). */
export const holding = `state IN ('claimed', 'pending', 'mined')`

/** The sender as a claim keys its (sender, nonce): hex addresses (EVM, Sui) are case-insensitive; base58 keys (Solana) are not. */
export const senderKey = (intent: Intent): string =>
  intent.sender.startsWith('0x') ? intent.sender.toLowerCase() : intent.sender

export type Row = {
  id: number
  chain_id: string
  intent_hash: string
  attempt: number
  intent: string
  state: JournalState
  status: number
  relayer: string | null
  tx_id: string | null
  tx_bytes: string | null
  tx_details: string | null
  block_number: string | null
  block_hash: string | null
  final: number
  chain_instance: string | null
  replaces: number | null
  /** Since SQLite schema 4 / PostgreSQL schema 5. */
  api_key_id?: string | null
  /** Since SQLite schema 11 / PostgreSQL schema 13: the record's call in a bundle (its bytes are in `transactions`). */
  bundle_index?: number | null
  gas_used: string | null
  return_data: string | null
  detail: string | null
  created_at: number
  updated_at: number
}

/**
 * A signed transaction as its record reads it back: a bundle's call without the bundle's bytes
 * (kept once, in `transactions`), and without the lease epoch (not stored).
 */
export function storedAs(tx: SignedExecution): SignedExecution {
  const { leaseEpoch: _, bytes, ...rest } = tx
  return structuredClone({ ...rest, bytes: tx.bundle ? '' : bytes })
}

export function serializeIntent(intent: Intent): string {
  return JSON.stringify(intent, (_, v) => (typeof v === 'bigint' ? v.toString() : v))
}

function parseIntentColumn(text: string): Intent {
  const raw = JSON.parse(text) as Record<string, string> & {
    accounts?: Intent['accounts']
    calls?: { target: string; value: string; data: string }[]
  }
  return {
    sender: raw.sender!,
    target: raw.target!,
    data: raw.data as Hex,
    value: BigInt(raw.value!),
    nonce: BigInt(raw.nonce!),
    validAfter: BigInt(raw.validAfter!),
    validBefore: BigInt(raw.validBefore!),
    policyId: raw.policyId as Hex,
    ...(raw.accounts && raw.accounts.length > 0 ? { accounts: raw.accounts } : {}),
    // A batch (account mode): its calls, written by serializeIntent with their values as decimal strings.
    ...(raw.calls && raw.calls.length > 0
      ? { calls: raw.calls.map((c) => ({ target: c.target, value: BigInt(c.value), data: c.data as Hex })) }
      : {}),
  }
}

export function fromRow(row: Row): ExecutionRecord {
  return {
    id: row.id,
    chainId: row.chain_id,
    intentHash: row.intent_hash as Hex,
    intent: parseIntentColumn(row.intent),
    state: row.state,
    status: row.status,
    attempt: row.attempt,
    transaction:
      row.tx_id === null
        ? undefined
        : {
            id: row.tx_id,
            bytes: row.tx_bytes ?? '',
            relayer: row.relayer ?? '',
            details: row.tx_details === null ? {} : (JSON.parse(row.tx_details) as SignedExecution['details']),
            ...(row.bundle_index === null || row.bundle_index === undefined
              ? {}
              : { bundle: { index: row.bundle_index } }),
          },
    blockNumber: row.block_number === null ? undefined : BigInt(row.block_number),
    blockHash: row.block_hash ?? undefined,
    final: row.final === 1,
    chainInstance: row.chain_instance ?? undefined,
    ...(row.api_key_id ? { apiKeyId: row.api_key_id } : {}),
    gasUsed: row.gas_used === null ? undefined : BigInt(row.gas_used),
    returnData: (row.return_data ?? undefined) as Hex | undefined,
    detail: row.detail ?? undefined,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  }
}
