// The journal port: what the gateway keeps of every execute it attempts, the same for every
// runtime and every backend (store/sqlite, store/postgres). Exactly-once is keyed on
// (chain, intentHash) and (chain, sender, nonce): one live attempt each.

import type { Hex } from 'viem'
import type { SignedExecution } from './chainAdapter.ts'
import type { ChangePosition } from './changePosition.ts'
import type { Intent } from './intent.ts'
import type { ExecutionState } from './intentOutcome.ts'
import type { OpsSwitchStore } from './opsSwitchStore.ts'
import type { PaymentLedger } from './paymentLedger.ts'
import type { WebhookOutbox } from './webhookOutbox.ts'

export type { ChangePosition }

/** `claimed`: held while preflight runs, nothing signed yet. The rest are ExecutionState. */
export type JournalState = 'claimed' | ExecutionState

export type ExecutionRecord = {
  /** Row id. */
  id: number
  chainId: string
  intentHash: Hex
  /**
   * 1, 2, …: one intent can have several attempts (after a revert, a dropped transaction, an
   * expired Solana blockhash); at most one of them is live (claimed, pending or mined) at a time.
   */
  attempt: number
  intent: Intent
  state: JournalState
  /** ERC-1066 code of the outcome (0xF3 while unconfirmed). */
  status: number
  /** The signed transaction (id, bytes to broadcast again, relayer, the runtime's details); none while claimed. */
  transaction: SignedExecution | undefined
  blockNumber: bigint | undefined
  /** The id (EVM: hash) of the block that holds the execution: a reorg that removes it is seen by comparing. */
  blockHash: string | undefined
  /**
   * Settled and deep enough (CONFIRMATIONS) to be reported final. A mined or reverted record that
   * is not final yet can still be reopened by a reorg.
   */
  final: boolean
  /**
   * The instance of the chain the attempt was made on (its adapter's `chainInstance()`), so that a
   * chain reset on the same id is told apart from the chain the record speaks of; undefined for a
   * record written before schema 3 (checked against the chain when it matters).
   */
  chainInstance: string | undefined
  /**
   * The API key whose request claimed this attempt (its short id, as the gateway logs it): its
   * events go to that key's webhook endpoints too. Absent for a request without a key, and for
   * records written before the journal kept it.
   */
  apiKeyId?: string | undefined
  gasUsed: bigint | undefined
  returnData: Hex | undefined
  detail: string | undefined
  createdAt: Date
  updatedAt: Date
}

export type Settlement = Pick<ExecutionRecord, 'status' | 'blockNumber' | 'gasUsed' | 'returnData' | 'detail'> & {
  state: Exclude<ExecutionState, 'pending'>
  blockHash?: string | undefined
  /** Final at once (the default): CONFIRMATIONS is 1, or the outcome cannot be undone (dropped). */
  final?: boolean | undefined
  /**
   * The transaction that settled it, when it is not the record's own: an earlier attempt that this
   * one replaced (same relayer nonce, other fees) was mined instead. That attempt is settled with
   * this outcome and this record becomes `dropped` (replaced).
   */
  transactionId?: string | undefined
}

/**
 * An Idempotency-Key as a claim records it (docs/journal.md, schema 6 / 8): the caller's scope
 * (`key:<API key id or oauth:iss#sub>`, else `sender:<address>`), the key, the SHA-256 of the
 * body's canonical JSON, and the execution it answers for. The key is bound to the same
 * (chain, intent hash) as the execution and its x402 payment, so a retry by any of the three
 * meets the one record.
 */
export type IdempotencyKeyRecord = {
  scope: string
  key: string
  /** Hex SHA-256 of the body's RFC 8785 canonical JSON. */
  fingerprint: string
  chainId: string
  intentHash: Hex
  createdAt: Date
  /** Kept until then (IDEMPOTENCY_KEY_TTL_HOURS after it was recorded); after it, the key is free again. */
  expiresAt: Date
}

/** What a claim records with its Idempotency-Key. */
export type IdempotencyKeyClaim = Pick<IdempotencyKeyRecord, 'scope' | 'key' | 'fingerprint' | 'expiresAt'>

export type Claim =
  | { ok: true; record: ExecutionRecord }
  /** Another attempt holds the intent or its (sender, nonce): here is its record. */
  | { ok: false; holder: ExecutionRecord }

/**
 * The journal's operations, the same for every runtime and every backend (SQLite here; a
 * PostgreSQL one satisfies the same type). Exactly-once is keyed on (chain, intentHash) and
 * (chain, sender, nonce): one live attempt each.
 */
export type Journal = {
  /**
   * Claims the intent for one execution; fails while another attempt of it (or of its sender and
   * nonce) is in flight or executed, or once an attempt of it reverted on-chain (an intent hash
   * has one outcome: a revert is final, and only a new intent tries again).
   */
  claim(params: {
    chainId: string
    intentHash: Hex
    intent: Intent
    chainInstance?: string | undefined /** The short id of the API key that asked, if any. */
    apiKeyId?: string | undefined
    /**
     * The request's Idempotency-Key, recorded with the claim in the same transaction when the claim
     * succeeds (and only then: a refused claim records nothing; a claim given back by `release`
     * takes its key with it). A key its caller recorded (and not expired) for another body or
     * intent makes the claim throw a GatewayError with status 0xA8 (IDEMPOTENCY_KEY_REUSED),
     * claiming nothing: of two requests racing with one key, one wins.
     */
    idempotencyKey?: IdempotencyKeyClaim | undefined
  }): Promise<Claim>
  /** The Idempotency-Key a caller recorded, while it is kept (not expired); undefined otherwise. */
  idempotencyKey(scope: string, key: string): Promise<IdempotencyKeyRecord | undefined>
  /** Gives back an attempt that sent nothing (refused before signing, or its transaction refused by the node), as if never made: the Idempotency-Key it recorded goes too. */
  release(record: ExecutionRecord): Promise<void>
  /**
   * Withdraws a claim that has signed nothing yet (an MCP tasks/cancel): gone as if never made,
   * only while it is still `claimed` (a compare-and-set against recordSigned, which then finds no
   * open record and throws, so nothing is broadcast). False: it was signed (or released) first.
   */
  withdraw(record: ExecutionRecord): Promise<boolean>
  /**
   * Records the signed transaction; durable (fsynced) before it resolves, so call it before
   * broadcasting. Signing it again (a new transaction for the same attempt) replaces it.
   */
  recordSigned(record: ExecutionRecord, tx: SignedExecution): Promise<void>
  /** Settles a pending record from the chain; false when it was no longer pending on that transaction. */
  settle(record: ExecutionRecord, settlement: Settlement): Promise<boolean>
  /**
   * Journals a new attempt of a pending record's intent with a new signed transaction that
   * replaces the record's (EVM: the same relayer nonce with higher fees; Solana: re-signed after
   * its blockhash expired). Durable before it resolves: call it before broadcasting. The record
   * becomes `dropped` ("replaced by attempt n"), and the new attempt is `pending` and lists the
   * replaced transactions, so that whichever of them is mined settles the intent.
   */
  replace(record: ExecutionRecord, tx: SignedExecution, detail: string): Promise<ExecutionRecord>
  /**
   * The signed bytes (base64) of a bundle (a transaction whose records carry `transaction.bundle`),
   * kept once for all its calls; undefined when the journal has no bundle of that id on the chain.
   */
  transactionBytes(chainId: string, transactionId: string): Promise<string | undefined>
  /** The transactions of the attempts a pending record replaced (oldest first). */
  replaced(record: ExecutionRecord): Promise<SignedExecution[]>
  /** Mined or reverted records not final yet (CONFIRMATIONS), oldest first. */
  unconfirmed(filter?: { chainId: string }): Promise<ExecutionRecord[]>
  /** Marks a settled record final; false when it was no longer a settled, unconfirmed record. */
  confirm(record: ExecutionRecord): Promise<boolean>
  /**
   * A reorg removed the block of a settled record (not yet final, or final and found gone on the
   * same chain instance): it goes back to `pending` on its transaction (the outcome cleared, not
   * final) for reconciliation to rebroadcast or drop it.
   */
  reopen(record: ExecutionRecord, detail: string): Promise<boolean>
  /**
   * The chain no longer has what a live record (pending, or mined) says: its instance was reset.
   * The record becomes `dropped` (0xF0) with this detail, whatever it said before, and stops
   * holding the intent.
   */
  retire(record: ExecutionRecord, detail: string): Promise<boolean>
  /** Binds a record to the chain instance it was verified on. */
  rebind(record: ExecutionRecord, chainInstance: string): Promise<void>
  /** Live records (pending or mined) on a chain bound to another instance than this one (not those bound to none). */
  otherInstances(chainId: string, chainInstance: string): Promise<ExecutionRecord[]>
  /** Every attempt of an intent on a chain, first to last. */
  attempts(chainId: string, intentHash: Hex): Promise<ExecutionRecord[]>
  /** One attempt of an intent (1, 2, …) on a chain. */
  attempt(chainId: string, intentHash: Hex, attempt: number): Promise<ExecutionRecord | undefined>
  /** The latest attempt of an intent, on one chain or on whichever chain saw it last (the live one first). */
  get(intentHash: Hex, chainId?: string): Promise<ExecutionRecord | undefined>
  /** Records whose transaction was signed but is not settled yet, in the order they were signed; of one chain, or one relayer on it. */
  pending(filter?: { chainId: string; relayer?: string }): Promise<ExecutionRecord[]>
  /**
   * Retention: deletes what was settled for good before `before` (executions final and settled or
   * dropped, of intents with no attempt still open; payments consumed or released). A pruned
   * intent is no longer replayed from the journal: a repeat is answered by the chain again.
   * Idempotency-Keys are deleted once expired, whatever `before` says (they are not counted).
   */
  prune(before: Date): Promise<{ executions: number; payments: number; webhooks: number }>
  /**
   * The change feed the webhook dispatcher turns into events: records changed after `position`,
   * in the order their changes were committed (never by a clock), and the position after the last
   * of them. A record changed again comes again, after its new change. A change committed later is
   * always after every position this returned, however late its writer commits and whatever the
   * writers' clocks say.
   */
  changesAfter(
    position: ChangePosition,
    limit: number,
  ): Promise<{ records: ExecutionRecord[]; position: ChangePosition }>
  /** A position before every change made at or after `since` (ms, by the writers' clocks): where a feed with no position starts. Changes before it may come again. */
  changePositionAt(since: number): Promise<ChangePosition>
  /** How many signed executions are not settled yet (cheap: a partial index). */
  pendingCount(): Promise<number>
  readonly path: string
  /** Where it lives, as /health names it: `sqlite` (the embedded file), `postgres` (a database shared by several instances). */
  readonly backend: string
  /** The database system, as OpenTelemetry's `db.system.name` names it (`sqlite`, `postgresql`): the journal's spans carry it. */
  readonly dbSystem: string
  /** The x402 payments, kept in the same store as the executions they pay for. */
  readonly payments: PaymentLedger
  /** The webhook outbox, in the same store: events are written from the executions it holds. */
  readonly webhooks: WebhookOutbox
  /** The operator console's switches and their audit, in the same store (absent from a journal that keeps none). */
  readonly ops?: OpsSwitchStore | undefined
  /** A consistent copy of the journal, taken while it is in use (SQLite's online backup; PostgreSQL refuses: its database has its own). */
  backup(destination: string): Promise<void>
  /** Resolves while the store answers (readiness); rejects with StorageUnavailableError when it does not. */
  ping(): Promise<void>
  close(): void | Promise<void>
}
