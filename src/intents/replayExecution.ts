// An intent hash has one outcome: a repeat of an intent this gateway has sent answers what became
// of it (marked replayed), and sends, simulates and charges nothing. An agent whose answer was
// lost retries and learns the outcome in one call.
import type { Hex } from 'viem'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { IntentOutcome } from '../ports/intentOutcome.ts'
import type { ExecutionRecord, Journal } from '../ports/journal.ts'
import { Status } from '../status/statusCodes.ts'
import { toReport } from './toReport.ts'

/** Whether a record is the intent's outcome (or its attempt in flight): what a repeat answers. */
export const holdsOutcome = (record: ExecutionRecord) =>
  record.state === 'claimed' || record.state === 'pending' || record.state === 'mined' || record.state === 'reverted'

/**
 * How long a repeat waits for a claim that has signed nothing yet (its request validates, simulates
 * or settles a payment) to send or be given back, bounded by the receipt timeout, and how often it looks.
 */
export const claimWaitMs = 10_000
export const claimPollMs = 50
/**
 * The intent's record once no request holds it claimed with nothing signed (it sent, or gave the
 * claim back), or as it is when the wait ends: read every claimPollMs for up to `waitMs` (never
 * more than claimWaitMs). `running` says which claims to wait for (default: every claim).
 */
export async function afterClaim(
  journal: Journal,
  intentHash: Hex,
  chainId: string,
  waitMs: number,
  running: (record: ExecutionRecord) => boolean = () => true,
): Promise<ExecutionRecord | undefined> {
  const deadline = Date.now() + Math.min(waitMs, claimWaitMs)
  let record = await journal.get(intentHash, chainId)
  while (record?.state === 'claimed' && running(record) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, claimPollMs))
    record = await journal.get(intentHash, chainId)
  }
  return record
}

export const claimHeldType = 'urn:intent-gateway:problem:claim-held'
const claimHeldRetrySeconds = 2

export type ReplayExecutionParameters = { adapter: ChainAdapter; journal: Journal; intentHash: Hex }

/** The replayed answer of an intent this gateway sent; undefined when it has none to replay (never sent, released, dropped). */
export async function replayExecution({
  adapter,
  journal,
  intentHash,
}: ReplayExecutionParameters): Promise<IntentOutcome | undefined> {
  const record = await journal.get(intentHash, adapter.chainId)
  // A claim has sent nothing: it may be one a dead instance left, which only the journal's claim
  // can take over. The request goes on, and its claim answers a live one (replayed, 202).
  if (!record || record.state === 'claimed' || !holdsOutcome(record)) return undefined
  if (!(await stillHolds(adapter, journal, record))) return undefined
  return replayOf(record, adapter)
}

/**
 * "Executed" is the journal's memory of the chain: a mined record is checked against the chain
 * before it is answered. One whose execution the chain no longer has stops holding the intent as
 * executed: on the chain instance it was made on (a reorg took its block), it is reopened, so that
 * its very transaction is delivered again at its relayer nonce (dropping it would leave that nonce
 * unused and every later transaction of the relayer stuck behind the gap); on another instance (the
 * chain was reset), it is retired and the intent may be sent again.
 */
export async function stillHolds(
  adapter: ChainAdapter,
  journal: Journal,
  record: ExecutionRecord,
  chainInstance?: string,
): Promise<boolean> {
  if (record.state !== 'mined' || !record.transaction || !adapter.confirmExecuted) return true
  const still = await adapter.confirmExecuted({
    ...record.transaction,
    intent: record.intent,
    blockNumber: record.blockNumber,
    blockHash: record.blockHash,
  })
  const now = chainInstance ?? (await adapter.chainInstance?.())
  if (!still) {
    const gone = `the chain no longer has this execution (transaction ${record.transaction.id} in block ${record.blockNumber ?? '?'})`
    if (now !== undefined && record.chainInstance === now) {
      // Reopened: pending on its transaction, for the reconciler to broadcast again (or settle if mined meanwhile).
      if (
        await journal.reopen(
          record,
          `reopened: ${gone}: a reorganization took its block, and the intent's nonce is unused; its transaction is delivered again`,
        )
      )
        return true
    }
    await journal.retire(record, `${gone}: the chain was reset or reorganized, and the intent's nonce is unused there`)
    return false
  }
  if (now !== undefined && record.chainInstance !== now) await journal.rebind(record, now)
  return true
}

/** The answer a repeat gets: the settled outcome once final, 202 with Location while in flight or not final. */
export function replayOf(
  record: ExecutionRecord,
  adapter: Pick<ChainAdapter, 'chainId' | 'chainType' | 'confirmations'>,
): IntentOutcome {
  const settled = (record.state === 'mined' || record.state === 'reverted') && record.final
  const detail = settled
    ? record.state === 'mined'
      ? 'this intent was executed already (replayed: nothing was sent or charged again)'
      : `this intent was sent already and reverted on-chain; the revert is its outcome (replayed: nothing was sent or charged again; to try again, sign a new intent with a new nonce)${record.detail ? `: ${record.detail}` : ''}`
    : 'this intent was sent already and is not final yet (replayed: nothing was sent or charged again); poll the Location for its state'
  return {
    status: settled ? record.status : Status.SUBMITTED,
    intentHash: record.intentHash,
    chainId: adapter.chainId,
    chainType: adapter.chainType,
    detail,
    execution: toReport(record, adapter),
    replayed: true,
  }
}

/**
 * The answer a repeat gets when the intent's claim has still signed nothing after claimWaitMs: 503,
 * retryable, never 202. Nothing was sent, so there is no transaction to report, and the claim may be
 * one a dead instance left (given back when that instance starts again, when its heartbeat ends or
 * after the stale-claim time): a client that took 202 for "sent" would wait for an execution nobody
 * makes, while a retry answers the outcome once the holder sends, or claims and runs the intent once
 * the claim is given back.
 */
export function claimHeld(intentHash: Hex, adapter: Pick<ChainAdapter, 'chainId' | 'chainType'>): IntentOutcome {
  return {
    status: Status.UNAVAILABLE,
    intentHash,
    chainId: adapter.chainId,
    chainType: adapter.chainType,
    detail: `another request holds this intent's claim and has sent nothing yet (it validates, simulates or settles its payment, or its gateway stopped before signing): this request sent and charged nothing; retry after ${claimHeldRetrySeconds} s: the retry answers the intent's outcome once it is sent, or runs it once the claim is given back`,
    problemType: claimHeldType,
    retryAfterSeconds: claimHeldRetrySeconds,
  }
}
