// Execute, in two steps with the payment's settlement between them (http/routes/intents/intentRoute.ts
// reads the whole sequence): prepareIntent claims the intent in the journal, validates and
// simulates it; then the caller either sends it (the signed transaction journaled before it is
// broadcast, then a bounded wait for the receipt) or abandons it (the claim given back, nothing
// sent). Whatever the request does not see settled, the journal's reconciler finishes.

import type { Hex } from 'viem'
import { ClaimWithdrawnError } from '../errors/claimWithdrawnError.ts'
import { ExecutionRefusedError } from '../errors/executionRefusedError.ts'
import { GatewayError } from '../errors/gatewayError.ts'
import type { FieldError } from '../errors/inputError.ts'
import type { ExecutionOutcomeLabel } from '../metrics/createMetrics.ts'
import type { ChainAdapter, ExecutionReceipt, PrecedingTransaction, Preflight } from '../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../ports/intent.ts'
import type { ExecutionReport, IntentOutcome } from '../ports/intentOutcome.ts'
import type { ExecutionRecord, Journal } from '../ports/journal.ts'
import { Status } from '../status/statusCodes.ts'
import { fromReceipt } from './fromReceipt.ts'
import {
  afterClaim,
  claimHeld,
  claimPollMs,
  claimWaitMs,
  holdsOutcome,
  replayOf,
  stillHolds,
} from './replayExecution.ts'
import { signingFor } from './signingFor.ts'
import { toReport } from './toReport.ts'

const noRelayerKeyType = 'urn:intent-gateway:problem:no-relayer-key'
const noRelayerKeyRetrySeconds = 2
/** How many times one execute is prepared again on another key after its key moved to another instance before its signature. */
const keyMovesAtMost = 2
const accountNotDelegatedType = 'urn:intent-gateway:problem:account-not-delegated'

export type ExecuteIntentParameters = {
  adapter: ChainAdapter
  intent: Intent
  intentHash: Hex
  /** The sender's (or a delegate's) signature of the intent, when the client sent one. */
  signature?: Hex | undefined
  /** Refuse unsigned intents at once (production, unless ALLOW_UNSIGNED_INTENTS) instead of asking the chain. */
  requireSignature?: boolean | undefined
  journal: Journal
  receiptTimeoutMs: number
  /**
   * How long this request waits for its receipt once sent (at most receiptTimeoutMs, its default):
   * 0 answers 202 0xF3 as soon as the node has the transaction (RFC 7240 `Prefer: respond-async`).
   */
  receiptWaitMs?: number | undefined
  /** What the 202 that receiptWaitMs gives says it honoured (HTTP's `Preference-Applied`). */
  preferenceApplied?: string | undefined
  /** When its request came (performance.now()): the runtime's log line of the send says how long each step took from there. */
  receivedAt?: number | undefined
  /** Told about faults that happen after the transaction was sent (receipt polling failures). */
  onBackgroundError?: (err: unknown, record: ExecutionRecord) => void
  /** Told how the request ended (metrics): refused when nothing was sent, failed when it threw. */
  onEnded?: ((outcome: ExecutionOutcomeLabel) => void) | undefined
  /** Told the seconds from the broadcast to the receipt, whenever the receipt arrives (after a 202 too). */
  onReceipt?: ((seconds: number) => void) | undefined
  /** Told every receipt of a transaction this request sent, whenever it arrives (standing and budgets count what it cost). */
  onSettled?: ((receipt: ExecutionReceipt) => void) | undefined
  /** The most gas this execution may use (a priced execute: what its price covers); the chain's own cap applies too. */
  gasCap?: bigint | undefined
  /** The short id of the API key that asked, kept with the claim (that key's webhook endpoints get the events). */
  apiKeyId?: string | undefined
  /** What the chain runs just before the execution (the payment's settlement): simulated first, together with it. */
  precededBy?: PrecedingTransaction | undefined
  /** Account mode: the intent runs from the sender's own address through its EIP-7702 delegate. */
  account?: AccountMode | undefined
  /** Its payment is settled before it is sent (x402): a refusal after that says the payment stays the intent's credit. */
  paid?: boolean | undefined
}

/** What a paid execute refused after its payment settled says of the payment. */
export const paymentCredited = {
  status: 'credited',
  detail:
    "the payment was settled, then the execution was refused at the state the settlement left: nothing was sent, and the payment stays this intent's credit (a repeat of the intent uses it; nothing is paid again)",
} as const

/**
 * What prepareIntent leaves: an answer already (refused, replayed, another intent's nonce; nothing
 * sent), or an intent claimed, validated and simulated, waiting to be sent or abandoned. Exactly one
 * of `send` and `abandon` must be called, unless `recheck` answered a refusal (it gave the claim back).
 */
export type PreparedIntent =
  | { kind: 'answered'; outcome: IntentOutcome }
  | {
      kind: 'ready'
      /** Signs, journals and broadcasts the transaction, then waits a bounded time for its receipt. */
      send(): Promise<IntentOutcome>
      /** Sends nothing and gives the claim back: answered `status` with `detail` (the payment did not settle, or its settlement is pending). */
      abandon(status: number, detail: string): Promise<IntentOutcome>
      /**
       * Where the runtime could not simulate the payment's settlement with the execution, or that
       * simulation no longer holds: simulates it again now (call it once the settlement is
       * confirmed). A refusal sends nothing, gives the claim back and is the answer; undefined: go
       * on and send.
       */
      recheck(): Promise<IntentOutcome | undefined>
    }

/** Claims, validates and simulates an intent (see the module comment); throws only what nothing was sent for. */
export async function prepareIntent(parameters: ExecuteIntentParameters): Promise<PreparedIntent> {
  const ended = parameters.onEnded ?? (() => {})
  let prepared: IntentOutcome | Steps
  try {
    prepared = await prepare(parameters)
  } catch (err) {
    ended('failed')
    throw err
  }
  if (!('send' in prepared)) {
    ended('refused')
    return { kind: 'answered', outcome: prepared }
  }
  const { send, abandon, recheck } = prepared
  return {
    kind: 'ready',
    recheck: async () => {
      let refused: IntentOutcome | undefined
      try {
        refused = await recheck()
      } catch (err) {
        ended('failed')
        throw err
      }
      if (refused) ended('refused')
      return refused
    },
    send: async () => {
      let sent: ExecutionOutcomeLabel | undefined
      try {
        const outcome = await send((label) => (sent = label))
        ended(sent ?? 'refused')
        return outcome
      } catch (err) {
        ended('failed')
        throw err
      }
    },
    abandon: async (status, detail) => {
      try {
        return await abandon(status, detail)
      } finally {
        ended('refused')
      }
    },
  }
}

/** Prepares, then sends at once: an execute nothing pays for. */
export async function executeIntent(parameters: ExecuteIntentParameters): Promise<IntentOutcome> {
  const prepared = await prepareIntent(parameters)
  return prepared.kind === 'answered' ? prepared.outcome : prepared.send()
}

type Steps = {
  kind: 'ready'
  send(noteSent: (outcome: 'mined' | 'reverted' | 'submitted') => void): Promise<IntentOutcome>
  abandon(status: number, detail: string): Promise<IntentOutcome>
  recheck(): Promise<IntentOutcome | undefined>
}

async function prepare({
  adapter,
  intent,
  intentHash,
  signature,
  requireSignature,
  journal,
  receiptTimeoutMs,
  receiptWaitMs = receiptTimeoutMs,
  preferenceApplied,
  onBackgroundError,
  onReceipt,
  onSettled,
  gasCap,
  apiKeyId,
  precededBy,
  account,
  paid,
  receivedAt,
}: ExecuteIntentParameters): Promise<IntentOutcome | Steps> {
  const outcome = (
    status: number,
    detail?: string,
    execution?: ExecutionReport,
    problemType?: string,
    errors?: FieldError[],
  ): IntentOutcome => ({
    status,
    intentHash,
    chainId: adapter.chainId,
    chainType: adapter.chainType,
    detail,
    execution,
    signing: signingFor(adapter, intent, status, account),
    ...(problemType ? { problemType } : {}),
    ...(errors ? { errors } : {}),
  })

  const keyMoved = (err: unknown) => err instanceof GatewayError && err.code === 'RELAYER_UNAVAILABLE'
  const noRelayerKey = (claimed = false): IntentOutcome => ({
    ...outcome(
      Status.UNAVAILABLE,
      `this instance holds no relayer key for ${adapter.chainId} now (the keys are leased to the other instances of this gateway): ${claimed ? 'nothing was sent (its claim was given back)' : 'nothing was claimed or sent'}; send the intent to another instance, or retry after ${noRelayerKeyRetrySeconds} s`,
    ),
    problemType: noRelayerKeyType,
    retryAfterSeconds: noRelayerKeyRetrySeconds,
  })

  if (!adapter.canExecute) {
    return outcome(
      Status.UNSUPPORTED_ACTION,
      `no relayer is configured for chain ${adapter.chainId}, so this gateway cannot execute on it (set RELAYER_PRIVATE_KEY; in production the chain also needs RPC_URLS, as discovered endpoints serve validation only)`,
    )
  }
  // Account mode asks for its signature itself (Solana: the transaction message to sign, which the
  // adapter builds and keeps), so an unsigned account-mode execute goes on to prepareExecution.
  if (!signature && requireSignature && !account) {
    return outcome(
      Status.SIGNATURE_REQUIRED,
      'this gateway executes only intents signed by their sender (or a delegate of the policy): sign the typed data in `signing` and send it as `signature`',
    )
  }

  // A gateway instance holding no relayer key now (the keys are leased to the other instances)
  // claims nothing: a claim it cannot send would hold the intent while nobody sends it.
  if (adapter.canSendNow && !(await adapter.canSendNow())) {
    // Another instance's claim that has signed nothing: wait for its outcome, as below (never a 202 for a claim).
    const holder = await afterClaim(journal, intentHash, adapter.chainId, receiptTimeoutMs)
    if (holder?.state === 'claimed') return claimHeld(intentHash, adapter)
    if (holder && holdsOutcome(holder) && (await stillHolds(adapter, journal, holder))) return replayOf(holder, adapter)
    return noRelayerKey()
  }

  // The chain instance the attempt is made on (a chain reset on the same id is another instance).
  const chainInstance = await adapter.chainInstance?.()
  let claim = await journal.claim({ chainId: adapter.chainId, intentHash, intent, chainInstance, apiKeyId })
  if (!claim.ok && !(await stillHolds(adapter, journal, claim.holder, chainInstance))) {
    claim = await journal.claim({ chainId: adapter.chainId, intentHash, intent, chainInstance, apiKeyId })
  }
  // The same intent claimed by a request that has signed nothing yet (it validates, simulates or
  // settles a payment): wait for it to send or to give the intent back, rather than answer 202 for
  // an intent that request may yet release (another instance losing its relayer key, a refusal).
  // Still unsigned after the wait: 503 claim-held, to retry (its holder may be dead).
  for (
    const deadline = Date.now() + Math.min(receiptTimeoutMs, claimWaitMs);
    !claim.ok && claim.holder.intentHash === intentHash && claim.holder.state === 'claimed' && Date.now() < deadline;
  ) {
    await new Promise((resolve) => setTimeout(resolve, claimPollMs))
    claim = await journal.claim({ chainId: adapter.chainId, intentHash, intent, chainInstance })
  }
  if (!claim.ok) {
    const { holder } = claim
    // The same intent: its one outcome, replayed. Another intent with the same sender and nonce: refused.
    if (holder.intentHash === intentHash)
      return holder.state === 'claimed' ? claimHeld(intentHash, adapter) : replayOf(holder, adapter)
    const what = `an intent with the same sender and nonce (${holder.intentHash})`
    return holder.state === 'mined'
      ? outcome(Status.NONCE_USED, `${what} was already executed`, toReport(holder, adapter))
      : outcome(Status.IN_FLIGHT, `${what} is already being executed`, toReport(holder, adapter))
  }
  const record = claim.record
  const depth = adapter.confirmations ?? 1
  // A later attempt (the last was dropped: replaced, or out of the gas we gave it) starts from what the last one had.
  const last = record.attempt > 1 ? await journal.attempt(adapter.chainId, intentHash, record.attempt - 1) : undefined
  const dropped = last?.state === 'dropped' ? last.transaction : undefined
  // A bundle's call read back without the bundle's bytes, which the journal keeps once: with them, so
  // the runtime reads its own call's limit.
  const previous =
    dropped?.bundle && dropped.bytes === ''
      ? { ...dropped, bytes: (await journal.transactionBytes(adapter.chainId, dropped.id)) ?? '' }
      : dropped

  // Nothing reached the chain (refused before signing, or the node refused the transaction): the claim goes back.
  const givenBack = async (err: unknown): Promise<IntentOutcome> => {
    await journal.release(record)
    // The relayer key went to another instance between the check above and the send.
    if (keyMoved(err)) return noRelayerKey(true)
    // Cancelled by its creator (MCP tasks/cancel) before the signature: nothing was sent.
    if (err instanceof ClaimWithdrawnError) return outcome(err.status, err.shortMessage)
    // Simulated again before its signature (the simulation it was prepared on no longer held), refused there.
    if (err instanceof ExecutionRefusedError)
      return { ...outcome(err.status, err.details), ...(paid ? { payment: paymentCredited } : {}) }
    throw err
  }
  // Prepared on a key (`settled`: again, once a paid execute's settlement is mined, so nothing runs
  // before it): ready to send, or the answer when nothing can be sent (its claim given back).
  const prepareOn = async (settled: boolean): Promise<Extract<Preflight, { ok: true }> | IntentOutcome> => {
    let preflight: Preflight
    try {
      preflight = await adapter.prepareExecution(intent, signature, {
        gasCap,
        previous,
        ...(precededBy && !settled ? { precededBy } : {}),
        ...(account ? { account } : {}),
        ...(receivedAt !== undefined ? { receivedAt } : {}),
      })
    } catch (err) {
      return givenBack(err)
    }
    if (preflight.ok) return preflight
    await journal.release(record)
    return {
      ...outcome(preflight.status, preflight.detail, undefined, preflight.problemType, preflight.errors),
      ...(settled && paid ? { payment: paymentCredited } : {}),
    }
  }
  const first = await prepareOn(false)
  if (!('send' in first)) return first
  let ready = first
  return {
    kind: 'ready',
    abandon: async (status, detail) => {
      ready.cancel?.()
      await journal.release(record)
      return outcome(status, detail)
    },
    recheck: async () => {
      if (!ready.recheck) return undefined
      let refused: Awaited<ReturnType<typeof ready.recheck>>
      try {
        refused = await ready.recheck()
      } catch (err) {
        // Nothing was sent: the claim goes back and the fault is the answer.
        ready.cancel?.()
        await journal.release(record)
        throw err
      }
      if (!refused) return undefined
      ready.cancel?.()
      await journal.release(record)
      return outcome(refused.status, refused.detail, undefined, refused.problemType)
    },
    send: async (noteSent) => {
      let submission: Awaited<ReturnType<typeof ready.send>>
      for (let moves = 0; ; moves++) {
        try {
          submission = await ready.send({ onSigned: (tx) => journal.recordSigned(record, tx) })
          break
        } catch (err) {
          // Its key went to another instance of the fleet between the simulation and the signature
          // (a rebalance as an instance joins, a lease taken over): nothing was recorded or sent.
          // While this instance holds another key, the claim stays and the execution is prepared
          // again on that key (simulated as it will send it), rather than answered 503 to be sent again.
          // Not in account mode: there the sender may have signed what names the key (Solana's fee
          // payer in the message it signed), so it is told to send again.
          if (!(moves < keyMovesAtMost && !account && keyMoved(err) && (await adapter.canSendNow?.())))
            return givenBack(err)
          const again = await prepareOn(true)
          if (!('send' in again)) return again
          ready = again
        }
      }
      return awaitReceipt(submission, noteSent)
    },
  }

  async function awaitReceipt(
    submission: Awaited<ReturnType<typeof ready.send>>,
    noteSent: (outcome: 'mined' | 'reverted' | 'submitted') => void,
  ): Promise<IntentOutcome> {
    let watchFailed = false
    const sentAt = performance.now()
    const settled = submission.receipt.then(
      async (receipt) => {
        onReceipt?.((performance.now() - sentAt) / 1000)
        await journal.settle(record, {
          ...fromReceipt(receipt),
          final: depth <= 1 || receipt.outOfGas === true || receipt.notExecuted === true,
        })
        onSettled?.(receipt)
        return receipt
      },
      (err: unknown) => {
        // The record stays pending: the reconciler asks the chain again later.
        watchFailed = true
        onBackgroundError?.(err, record)
        return undefined
      },
    )

    let timer: ReturnType<typeof setTimeout> | undefined
    const waitMs = Math.min(receiptWaitMs, receiptTimeoutMs)
    try {
      // Asked to answer once sent (waitMs 0): the receipt is the watch's, in the background, as after any
      // 202, unless the node's answer to the send already gave it (Sui's effects): then it is the answer.
      const receipt =
        waitMs > 0
          ? await Promise.race([
              settled,
              new Promise<undefined>((resolve) => {
                timer = setTimeout(() => resolve(undefined), waitMs)
              }),
            ])
          : (await knownAtOnce(submission.receipt))
            ? await settled
            : undefined
      if (receipt) {
        noteSent(receipt.state)
        if (depth > 1) {
          // Mined, not final: a reorg can still undo it. 202 until CONFIRMATIONS blocks deep.
          return outcome(
            Status.SUBMITTED,
            `the transaction was mined (${receipt.state === 'mined' ? 'executed' : 'reverted'}, code 0x${receipt.status.toString(16).padStart(2, '0').toUpperCase()}) but is not final until ${depth} blocks deep; poll the Location for its final state`,
            toReport(record, adapter),
          )
        }
        // Out of the gas we gave it, or (account mode) mined without running the intent: not the
        // intent's outcome; the record is dropped and the intent may be sent again.
        if (receipt.outOfGas || receipt.notExecuted)
          return outcome(
            receipt.outOfGas ? Status.GATEWAY_FAILURE : receipt.status,
            receipt.detail,
            toReport(record, adapter),
            receipt.notExecuted ? accountNotDelegatedType : undefined,
          )
        return outcome(receipt.status, receipt.detail, toReport(record, adapter))
      }
      noteSent('submitted')
      const why = watchFailed
        ? 'the transaction was signed and journaled, but the chain could not be asked for its receipt'
        : submission.accepted
          ? waitMs === 0
            ? 'the transaction was sent, and answered at once as the request preferred (respond-async)'
            : `the transaction was sent but not mined within ${waitMs} ms`
          : 'the transaction was signed and journaled, but the node did not answer its broadcast'
      return {
        ...outcome(
          Status.SUBMITTED,
          `${why}; the gateway keeps delivering it: poll the Location for its state`,
          toReport(record, adapter),
        ),
        // The wait the request asked for ended it (not the gateway's own bound).
        ...(preferenceApplied && waitMs < receiptTimeoutMs ? { preferenceApplied } : {}),
        executionLater: settled.then(
          (receipt) => (receipt ? toReport(record, adapter) : undefined),
          () => undefined,
        ),
      }
    } finally {
      clearTimeout(timer)
    }
  }
}

/** Whether a receipt is already in hand (a settled promise), told within this turn of the event loop. */
function knownAtOnce(receipt: Promise<unknown>): Promise<boolean> {
  return Promise.race([
    receipt.then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ])
}
