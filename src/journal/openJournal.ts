// The execution journal: every execute this gateway attempts, in an SQLite file that outlives the
// process. A record is claimed before preflight (one holder per intent and per (sender, nonce)),
// written durably with its signed transaction before that transaction is broadcast, and settled
// from the chain. After a crash, the records still `pending` are what the reconciler finishes.
import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Address, Hex } from 'viem'
import type { SignedExecution } from '../chains/chainAdapter.ts'
import { ConfigError } from '../errors/configError.ts'
import type { Intent } from '../intents/intent.ts'
import type { ExecutionState } from '../intents/intentOutcome.ts'
import { Status } from '../status/statusCodes.ts'

/** `claimed`: held while preflight runs, nothing signed yet. The rest are ExecutionState. */
export type JournalState = 'claimed' | ExecutionState

export type ExecutionRecord = {
  /** Row id: one intent can have several attempts (after a revert or a dropped transaction). */
  id: number
  chainId: string
  intentHash: Hex
  intent: Intent
  state: JournalState
  /** ERC-1066 code of the outcome (0xF3 while unconfirmed). */
  status: number
  relayer: Address | undefined
  /** The relayer account's nonce the transaction uses. */
  txNonce: number | undefined
  transactionHash: Hex | undefined
  /** The signed transaction, so that a dropped one can be broadcast again, byte for byte. */
  rawTransaction: Hex | undefined
  blockNumber: bigint | undefined
  gasUsed: bigint | undefined
  returnData: Hex | undefined
  detail: string | undefined
  createdAt: Date
  updatedAt: Date
}

export type Settlement = Pick<ExecutionRecord, 'status' | 'blockNumber' | 'gasUsed' | 'returnData' | 'detail'> & {
  state: Exclude<ExecutionState, 'pending'>
}

export type Claim =
  | { ok: true; record: ExecutionRecord }
  /** Another attempt holds the intent or its (sender, nonce): here is its record. */
  | { ok: false; holder: ExecutionRecord }

export type Journal = {
  /** Claims the intent for one execution; fails while another attempt of it (or of its sender and nonce) is in flight or executed. */
  claim(params: { chainId: string; intentHash: Hex; intent: Intent }): Claim
  /** Gives back an attempt that sent nothing (refused before signing, or its transaction refused by the node), as if never made. */
  release(record: ExecutionRecord): void
  /** Records the signed transaction; durable (fsynced) before it returns, so call it before broadcasting. */
  recordSigned(record: ExecutionRecord, tx: SignedExecution): void
  /** Settles a pending record from the chain; false when it was no longer pending on that transaction. */
  settle(record: ExecutionRecord, settlement: Settlement): boolean
  /** The latest attempt of an intent, on one chain or on whichever chain saw it last. */
  get(intentHash: Hex, chainId?: string): ExecutionRecord | undefined
  /** Records whose transaction was signed but is not settled yet. */
  pending(chainId?: string): ExecutionRecord[]
  /** The highest relayer nonce used by a pending record: new transactions must go above it. */
  highestPendingTxNonce(chainId: string, relayer: Address): number | undefined
  /** How many signed executions are not settled yet (cheap: a partial index). */
  pendingCount(): number
  readonly path: string
  /** A consistent copy of the journal, taken while it is in use (SQLite's online backup). */
  backup(destination: string): Promise<void>
  close(): void
}

export type OpenJournalParameters = {
  /** File path, or `:memory:` for a journal that dies with the process (devnet, tests). */
  path: string
  /** `full` fsyncs the signed-transaction write (survives power loss); `normal` survives a process crash only. */
  synchronous?: 'full' | 'normal'
}

const holding = `state IN ('claimed', 'pending', 'mined')`

const schema = `
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
`

type Row = {
  id: number
  chain_id: string
  intent_hash: string
  intent: string
  state: JournalState
  status: number
  relayer: string | null
  tx_nonce: number | null
  transaction_hash: string | null
  raw_transaction: string | null
  block_number: string | null
  gas_used: string | null
  return_data: string | null
  detail: string | null
  created_at: number
  updated_at: number
}

export function openJournal({ path, synchronous = 'full' }: OpenJournalParameters): Journal {
  let db: Database.Database
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    db = new Database(path, { timeout: 1000 })
    // One gateway per journal: the first write takes a lock that is held until close, so a
    // second gateway on the same file fails at start-up instead of sharing its relayer nonces.
    db.pragma('locking_mode = EXCLUSIVE')
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.exec(schema)
    // A claim that never got as far as a signed transaction sent nothing: give it back.
    db.prepare(`DELETE FROM executions WHERE state = 'claimed'`).run()
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    throw new ConfigError([
      /locked|busy/i.test(message)
        ? `JOURNAL_PATH: ${path} is in use by another gateway process (one journal per gateway)`
        : `JOURNAL_PATH: cannot open the execution journal at ${path}: ${message}`,
    ])
  }

  const insert = db.prepare(
    `INSERT INTO executions (chain_id, intent_hash, sender, intent_nonce, intent, state, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'claimed', ?, ?, ?)`,
  )
  const byId = db.prepare<[number], Row>('SELECT * FROM executions WHERE id = ?')
  const intentHolder = db.prepare<[string, string], Row>(`SELECT * FROM executions WHERE chain_id = ? AND intent_hash = ? AND ${holding}`)
  const nonceHolder = db.prepare<[string, string, string], Row>(`SELECT * FROM executions WHERE chain_id = ? AND sender = ? AND intent_nonce = ? AND ${holding}`)
  const remove = db.prepare(`DELETE FROM executions WHERE id = ? AND state IN ('claimed', 'pending')`)
  const signed = db.prepare(
    `UPDATE executions SET state = 'pending', relayer = ?, tx_nonce = ?, transaction_hash = ?, raw_transaction = ?, updated_at = ?
     WHERE id = ? AND state IN ('claimed', 'pending')`,
  )
  const settle = db.prepare(
    `UPDATE executions SET state = ?, status = ?, block_number = ?, gas_used = ?, return_data = ?, detail = ?, updated_at = ?
     WHERE id = ? AND state = 'pending' AND transaction_hash = ?`,
  )
  const latestOnChain = db.prepare<[string, string], Row>('SELECT * FROM executions WHERE intent_hash = ? AND chain_id = ? ORDER BY id DESC LIMIT 1')
  const latest = db.prepare<[string], Row>('SELECT * FROM executions WHERE intent_hash = ? ORDER BY updated_at DESC, id DESC LIMIT 1')
  const pendingAll = db.prepare<[], Row>(`SELECT * FROM executions WHERE state = 'pending' ORDER BY id`)
  const pendingOn = db.prepare<[string], Row>(`SELECT * FROM executions WHERE state = 'pending' AND chain_id = ? ORDER BY id`)
  const highestNonce = db.prepare<[string, string], { n: number | null }>(
    `SELECT MAX(tx_nonce) AS n FROM executions WHERE state = 'pending' AND chain_id = ? AND relayer = ?`,
  )
  const pendingCount = db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM executions WHERE state = 'pending'`)

  const claim = db.transaction((chainId: string, intentHash: Hex, intent: Intent): Claim => {
    const sender = intent.sender.toLowerCase()
    const held = intentHolder.get(chainId, intentHash) ?? nonceHolder.get(chainId, sender, intent.nonce.toString())
    if (held) return { ok: false, holder: fromRow(held) }
    const now = Date.now()
    const { lastInsertRowid } = insert.run(chainId, intentHash, sender, intent.nonce.toString(), serializeIntent(intent), Status.SUBMITTED, now, now)
    return { ok: true, record: fromRow(byId.get(Number(lastInsertRowid))!) }
  })

  return {
    path,
    // IMMEDIATE: the check and the insert happen under one write lock.
    claim: ({ chainId, intentHash, intent }) => claim.immediate(chainId, intentHash, intent),
    release(record) {
      remove.run(record.id)
    },
    recordSigned(record, tx) {
      const now = Date.now()
      if (synchronous === 'full') db.pragma('synchronous = FULL')
      try {
        const { changes } = signed.run(tx.relayer, tx.txNonce, tx.transactionHash, tx.rawTransaction, now, record.id)
        if (changes !== 1) throw new Error(`journal record ${record.id} is no longer open for a transaction`)
      } finally {
        if (synchronous === 'full') db.pragma('synchronous = NORMAL')
      }
      Object.assign(record, { state: 'pending', relayer: tx.relayer, txNonce: tx.txNonce, transactionHash: tx.transactionHash, rawTransaction: tx.rawTransaction, updatedAt: new Date(now) })
    },
    settle(record, s) {
      if (!db.open) return false // a watch that outlived shutdown: the next start reconciles it
      const now = Date.now()
      const { changes } = settle.run(s.state, s.status, s.blockNumber?.toString() ?? null, s.gasUsed?.toString() ?? null, s.returnData ?? null, s.detail ?? null, now, record.id, record.transactionHash ?? null)
      if (changes !== 1) return false
      Object.assign(record, s, { updatedAt: new Date(now) })
      return true
    },
    get(intentHash, chainId) {
      const row = chainId ? latestOnChain.get(intentHash, chainId) : latest.get(intentHash)
      return row && fromRow(row)
    },
    pending: (chainId) => (chainId ? pendingOn.all(chainId) : pendingAll.all()).map(fromRow),
    highestPendingTxNonce: (chainId, relayer) => highestNonce.get(chainId, relayer)?.n ?? undefined,
    pendingCount: () => pendingCount.get()!.n,
    async backup(destination) {
      mkdirSync(dirname(destination), { recursive: true })
      await db.backup(destination)
    },
    close() {
      if (!db.open) return
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
    },
  }
}

function serializeIntent(intent: Intent): string {
  return JSON.stringify(intent, (_, v) => (typeof v === 'bigint' ? v.toString() : v))
}

function parseIntentColumn(text: string): Intent {
  const raw = JSON.parse(text) as Record<string, string>
  return {
    sender: raw.sender!,
    target: raw.target!,
    data: raw.data as Hex,
    value: BigInt(raw.value!),
    nonce: BigInt(raw.nonce!),
    validAfter: BigInt(raw.validAfter!),
    validBefore: BigInt(raw.validBefore!),
    policyId: raw.policyId as Hex,
  }
}

function fromRow(row: Row): ExecutionRecord {
  return {
    id: row.id,
    chainId: row.chain_id,
    intentHash: row.intent_hash as Hex,
    intent: parseIntentColumn(row.intent),
    state: row.state,
    status: row.status,
    relayer: (row.relayer ?? undefined) as Address | undefined,
    txNonce: row.tx_nonce ?? undefined,
    transactionHash: (row.transaction_hash ?? undefined) as Hex | undefined,
    rawTransaction: (row.raw_transaction ?? undefined) as Hex | undefined,
    blockNumber: row.block_number === null ? undefined : BigInt(row.block_number),
    gasUsed: row.gas_used === null ? undefined : BigInt(row.gas_used),
    returnData: (row.return_data ?? undefined) as Hex | undefined,
    detail: row.detail ?? undefined,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  }
}
