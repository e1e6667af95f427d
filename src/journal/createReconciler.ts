// Finishes what the journal says is unfinished: every record whose transaction was signed but not
// settled is checked against its chain, at start-up (before the gateway takes requests) and then
// periodically. Mined → settled from the receipt; lost by the node → broadcast again, byte for
// byte; replaced or refused for good (its relayer nonce or gas coin taken) → settled as dropped.
import type { Logger } from 'pino'
import type { ChainAdapter } from '../chains/chainAdapter.ts'
import { fromReceipt } from '../intents/executeIntent.ts'
import { Status } from '../status/statusCodes.ts'
import type { ExecutionRecord, Journal } from './openJournal.ts'

export type ReconcileReport = { checked: number; settled: number; dropped: number; rebroadcast: number; stillPending: number; failed: number }

export type Reconciler = {
  /** One pass over the pending records older than `minAgeMs` (all of them when 0). */
  runOnce(options?: { minAgeMs?: number }): Promise<ReconcileReport>
  start(): void
  /** Stops the periodic passes and waits for the one under way. */
  stop(): Promise<void>
}

export type CreateReconcilerParameters = {
  journal: Journal
  adapters: readonly ChainAdapter[]
  intervalMs: number
  logger: Logger
}

export function createReconciler({ journal, adapters, intervalMs, logger }: CreateReconcilerParameters): Reconciler {
  const log = logger.child({ module: 'reconciler' })
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<ReconcileReport> | undefined
  let stopped = false

  async function reconcileRecord(adapter: ChainAdapter, record: ExecutionRecord, report: ReconcileReport) {
    const { transaction } = record
    if (!transaction) return
    const transactionHash = transaction.id
    const result = await adapter.reconcile({ ...transaction, intent: record.intent })
    switch (result.kind) {
      case 'settled':
        if (await journal.settle(record, fromReceipt(result.receipt))) {
          report.settled++
          log.info({ intentHash: record.intentHash, chainId: record.chainId, transactionHash, state: result.receipt.state }, 'journaled execution settled from the chain')
        }
        return
      case 'dropped':
        await journal.settle(record, {
          state: 'dropped',
          status: result.executed ? Status.NONCE_USED : Status.GATEWAY_FAILURE,
          detail: result.detail,
          blockNumber: undefined,
          gasUsed: undefined,
          returnData: undefined,
        })
        report.dropped++
        log.warn({ intentHash: record.intentHash, chainId: record.chainId, transactionHash, executed: result.executed }, 'journaled transaction was replaced')
        return
      case 'rebroadcast':
        report.rebroadcast++
        return
      case 'pending':
        report.stillPending++
    }
  }

  async function pass(minAgeMs: number): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, settled: 0, dropped: 0, rebroadcast: 0, stillPending: 0, failed: 0 }
    const cutoff = Date.now() - minAgeMs
    // In the order they were signed (for EVM, nonce order per relayer), so that a node that lost
    // several gets them back without gaps.
    const records = (await journal.pending()).filter((r) => r.updatedAt.getTime() <= cutoff)
    const unreachable = new Set<string>()
    for (const record of records) {
      if (unreachable.has(record.chainId)) continue
      const adapter = adapters.find((a) => a.chainId === record.chainId)
      if (!adapter) {
        log.warn({ intentHash: record.intentHash, chainId: record.chainId }, 'journaled execution on a chain this gateway no longer serves; left pending')
        continue
      }
      report.checked++
      try {
        await reconcileRecord(adapter, record, report)
      } catch (err) {
        report.failed++
        // One unreachable chain costs one timeout per pass, not one per record.
        unreachable.add(record.chainId)
        log.warn({ err, intentHash: record.intentHash, chainId: record.chainId }, 'could not reconcile a journaled execution; will try again')
      }
    }
    if (report.checked > 0) log.info(report, 'reconciliation pass')
    return report
  }

  function runOnce({ minAgeMs = 0 } = {}) {
    // Passes never overlap: a second caller waits for the one under way, then runs its own.
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(() => pass(minAgeMs))
    running = next
    return next
  }

  function schedule() {
    if (stopped) return
    timer = setTimeout(() => {
      runOnce({ minAgeMs: intervalMs })
        .catch((err: unknown) => log.error({ err }, 'reconciliation pass failed'))
        .finally(schedule)
    }, intervalMs)
    timer.unref()
  }

  return {
    runOnce,
    start() {
      stopped = false
      if (!timer) schedule()
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      timer = undefined
      await running?.catch(() => undefined)
    },
  }
}
