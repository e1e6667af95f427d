// Finishes what the journal says is unfinished, at start-up (before the gateway takes requests)
// and then periodically, chain by chain:
// - the chain instance: records made on another instance of the chain (reset on the same id) are
//   settled from the chain if it has them, else dropped (pending) or retired (mined), never sent
//   again;
// - confirmations: a mined or reverted record not final yet is confirmed once CONFIRMATIONS blocks
//   deep, or reopened when a reorg removed its block (and reconciled below, in the same pass);
// - every record whose transaction was signed but not settled: mined → settled from the receipt;
//   lost by the node → broadcast again, byte for byte; replaced or unable to mine (its relayer
//   nonce or gas coin taken, or above a nonce gap) → settled as dropped; still pending but
//   underpriced → replaced by a re-priced transaction, journaled as a new attempt first.
import type { Logger } from 'pino'
import type { ChainAdapter, Replacement, SignedExecution } from '../ports/chainAdapter.ts'
import type { ExecutionRecord, Journal } from '../ports/journal.ts'
import { Status } from '../status/statusCodes.ts'
import { fromReceipt } from './fromReceipt.ts'

export type ReconcileReport = {
  checked: number
  settled: number
  dropped: number
  rebroadcast: number
  stillPending: number
  failed: number
  /** Pending transactions replaced by a re-priced one. */
  repriced: number
  /** Settled records that reached their confirmation depth. */
  confirmed: number
  /** Settled records whose block a reorg removed: back to pending. */
  reopened: number
  /** Records of another chain instance that the chain no longer has. */
  retired: number
  /** Relayer nonces left empty under queued transactions (a reorg, a lost filler), filled with a no-op. */
  gapsFilled: number
}

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
  /**
   * Whether this instance owns a relayer's records on a chain (default: every record). Several
   * instances sharing a journal each reconcile only the records of the relayer keys they hold:
   * two instances never rebroadcast, replace or drop the same record.
   */
  holds?: ((chainId: string, relayer: string) => boolean) | undefined
}

/** What one pass keeps across its records: the bundles it re-priced (their other calls were replaced with the first: replaceBundle), and the bundles' bytes it read. */
type Pass = { repriced: Set<string>; bytes: Map<string, string> }

export function createReconciler({
  journal,
  adapters,
  intervalMs,
  logger,
  holds = () => true,
}: CreateReconcilerParameters): Reconciler {
  const mine = (record: ExecutionRecord) =>
    record.transaction === undefined || holds(record.chainId, record.transaction.relayer)
  const log = logger.child({ module: 'reconciler' })
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<ReconcileReport> | undefined
  let stopped = false

  async function settleFrom(
    adapter: ChainAdapter,
    record: ExecutionRecord,
    receipt: Parameters<typeof fromReceipt>[0],
    report: ReconcileReport,
  ) {
    if (await journal.settle(record, { ...fromReceipt(receipt), final: (adapter.confirmations ?? 1) <= 1 })) {
      report.settled++
      log.info(
        {
          intentHash: record.intentHash,
          chainId: record.chainId,
          transactionHash: receipt.transactionHash,
          state: receipt.state,
        },
        'journaled execution settled from the chain',
      )
    }
  }

  /**
   * A bundle's call with the bundle's bytes, which the journal keeps once for all its calls: the
   * runtime reads and sends the bundle whole. Read once a pass (`read`: the pass's bytes by bundle),
   * not once for each of its calls.
   */
  async function withBytes(chainId: string, tx: SignedExecution, read?: Map<string, string>): Promise<SignedExecution> {
    if (!tx.bundle || tx.bytes !== '') return tx
    const key = `${chainId} ${tx.id}`
    let bytes = read?.get(key)
    if (bytes === undefined) {
      bytes = await journal.transactionBytes(chainId, tx.id)
      if (bytes === undefined) throw new Error(`the journal has no bytes of bundle ${tx.id}, which its record names`)
      read?.set(key, bytes)
    }
    return { ...tx, bytes }
  }

  /**
   * A stuck bundle re-priced: every call of it still pending (its other executions, whatever their
   * order in this pass) is journaled as a new attempt on the re-priced bundle, at its own index, before
   * the one broadcast. Each call re-signed alone would take the bundle's nonce from the others.
   */
  async function replaceBundle(record: ExecutionRecord, replacement: Replacement) {
    const bundleId = record.transaction!.id
    const calls = (await journal.pending({ chainId: record.chainId, relayer: record.transaction!.relayer })).filter(
      (r) => r.transaction?.id === bundleId,
    )
    for (const call of calls) {
      const next = await journal.replace(
        call,
        { ...replacement.tx, bundle: call.transaction!.bundle },
        `replaced by attempt ${call.attempt + 1}: the bundle it is in ${replacement.detail}`,
      )
      log.warn(
        {
          intentHash: call.intentHash,
          chainId: call.chainId,
          transactionHash: bundleId,
          replacement: replacement.tx.id,
          attempt: next.attempt,
          index: call.transaction!.bundle?.index,
          detail: replacement.detail,
        },
        'stuck bundle re-priced as a new attempt of each of its executions',
      )
    }
  }

  async function reconcileRecord(
    adapter: ChainAdapter,
    record: ExecutionRecord,
    report: ReconcileReport,
    options: { minAgeMs: number; otherInstance?: boolean; pass?: Pass },
  ) {
    const { transaction } = record
    if (!transaction) return
    // A bundle is re-priced once, for all its calls: a later call of it in this pass was replaced with the first.
    if (transaction.bundle && options.pass?.repriced.has(transaction.id)) return
    const transactionHash = transaction.id
    const replaced = await Promise.all(
      (record.attempt > 1 ? await journal.replaced(record) : []).map((tx) =>
        withBytes(record.chainId, tx, options.pass?.bytes),
      ),
    )
    const request = {
      ...(await withBytes(record.chainId, transaction, options.pass?.bytes)),
      intent: record.intent,
      replaced,
      otherInstance: options.otherInstance,
    }
    const result = await adapter.reconcile(request)
    switch (result.kind) {
      case 'settled':
        await settleFrom(adapter, record, result.receipt, report)
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
        log.warn(
          {
            intentHash: record.intentHash,
            chainId: record.chainId,
            transactionHash,
            executed: result.executed,
            detail: result.detail,
          },
          'journaled transaction dropped',
        )
        return
      case 'rebroadcast':
        report.rebroadcast++
        return
      case 'refused':
      case 'pending': {
        report.stillPending++
        const pendingForMs = Date.now() - record.updatedAt.getTime()
        // A transaction the node refuses as it is gets a replacement at once; a pending one after a pass.
        if (!adapter.replacement || (result.kind === 'pending' && pendingForMs < options.minAgeMs)) return
        const replacement = await adapter.replacement(request, pendingForMs)
        if (!replacement) return
        // Journaled before it is broadcast: whichever of the two is mined settles the intent.
        if (transaction.bundle) {
          await replaceBundle(record, replacement)
          options.pass?.repriced.add(transactionHash)
          report.repriced++
          await replacement.broadcast()
          return
        }
        const next = await journal.replace(
          record,
          replacement.tx,
          `replaced by attempt ${record.attempt + 1}: ${replacement.detail}`,
        )
        log.warn(
          {
            intentHash: record.intentHash,
            chainId: record.chainId,
            transactionHash,
            replacement: replacement.tx.id,
            attempt: next.attempt,
            detail: replacement.detail,
          },
          'stuck transaction re-priced as a new attempt',
        )
        report.repriced++
        await replacement.broadcast()
      }
    }
  }

  /** Records made on another instance of the chain: verified against this one. */
  async function checkInstance(adapter: ChainAdapter, report: ReconcileReport) {
    if (!adapter.chainInstance) return
    const instance = await adapter.chainInstance()
    const others = (await journal.otherInstances(adapter.chainId, instance)).filter(mine)
    if (others.length === 0) return
    log.warn(
      { chainId: adapter.chainId, chainInstance: instance, records: others.length },
      'journal records of another instance of this chain (it was reset): checking each against the chain',
    )
    for (const record of others) {
      if (!record.transaction) continue
      if (record.state === 'pending') {
        report.checked++
        await reconcileRecord(adapter, record, report, { minAgeMs: Number.POSITIVE_INFINITY, otherInstance: true })
        // Settled from the chain (settle updates the record): it is on this instance too.
        if ((record.state as string) !== 'dropped') await journal.rebind(record, instance)
        continue
      }
      // Mined: still there (a node restarted with its state) or gone with the old instance.
      const check = adapter.checkMined
        ? await adapter.checkMined({
            ...record.transaction,
            blockNumber: record.blockNumber,
            blockHash: record.blockHash,
          })
        : undefined
      if (!check || check.kind === 'present') {
        await journal.rebind(record, instance)
        continue
      }
      if (
        await journal.retire(
          record,
          `the chain was reset: ${check.detail}; the execution no longer exists on ${record.chainId} and the intent may be sent again`,
        )
      ) {
        report.retired++
        log.warn(
          { intentHash: record.intentHash, chainId: record.chainId, transactionHash: record.transaction.id },
          'executed record of a reset chain retired: the chain no longer has it',
        )
      }
    }
  }

  /** Mined or reverted records not final yet: confirmed when deep enough, reopened after a reorg. */
  async function checkConfirmations(adapter: ChainAdapter, report: ReconcileReport) {
    if (!adapter.checkMined) return
    const depth = adapter.confirmations ?? 1
    for (const record of (await journal.unconfirmed({ chainId: adapter.chainId })).filter(mine)) {
      if (!record.transaction) continue
      const check = await adapter.checkMined({
        ...record.transaction,
        blockNumber: record.blockNumber,
        blockHash: record.blockHash,
      })
      if (check.kind === 'present') {
        if (check.confirmations >= depth && (await journal.confirm(record))) report.confirmed++
        continue
      }
      if (await journal.reopen(record, `reopened: ${check.detail}`)) {
        report.reopened++
        log.warn(
          {
            intentHash: record.intentHash,
            chainId: record.chainId,
            transactionHash: record.transaction.id,
            blockNumber: record.blockNumber?.toString(),
            detail: check.detail,
          },
          'a reorg removed a mined execution: reopened, to be reconciled',
        )
      }
    }
  }

  /** Each relayer's records sorted by the adapter's sequence, in the positions its records held. */
  function inSequence(records: ExecutionRecord[]): ExecutionRecord[] {
    const groups = new Map<string, number[]>()
    records.forEach((r, i) => {
      const key = `${r.chainId} ${r.transaction?.relayer.toLowerCase()}`
      const group = groups.get(key)
      if (group) group.push(i)
      else groups.set(key, [i])
    })
    const ordered = [...records]
    for (const positions of groups.values()) {
      const first = records[positions[0]!]!
      const sequenceOf = adapters.find((a) => a.chainId === first.chainId)?.sequenceOf
      if (!sequenceOf || positions.length < 2) continue
      let keyed: Array<{ record: ExecutionRecord; at: number }>
      try {
        keyed = positions.map((i) => ({ record: records[i]!, at: sequenceOf(records[i]!.transaction!) }))
      } catch {
        continue // a record the runtime cannot place: signing order
      }
      keyed.sort((a, b) => a.at - b.at)
      positions.forEach((p, k) => (ordered[p] = keyed[k]!.record))
    }
    return ordered
  }

  /**
   * Once the records are delivered: a relayer whose own transactions still wait behind an empty
   * nonce (nothing journaled holds it, e.g. a reorg emptied it while the relayer is idle) has it
   * filled, or what is queued never mines.
   */
  async function fillGaps(report: ReconcileReport, unreachable: ReadonlySet<string>) {
    for (const adapter of adapters) {
      if (!adapter.fillGaps || unreachable.has(adapter.chainId)) continue
      try {
        report.gapsFilled += await adapter.fillGaps()
      } catch (err) {
        report.failed++
        log.warn({ err, chainId: adapter.chainId }, 'could not check the relayer nonces for gaps; will try again')
      }
    }
  }

  async function pass(minAgeMs: number): Promise<ReconcileReport> {
    const report: ReconcileReport = {
      checked: 0,
      settled: 0,
      dropped: 0,
      rebroadcast: 0,
      stillPending: 0,
      failed: 0,
      repriced: 0,
      confirmed: 0,
      reopened: 0,
      retired: 0,
      gapsFilled: 0,
    }
    const unreachable = new Set<string>()
    for (const adapter of adapters) {
      try {
        await checkInstance(adapter, report)
        await checkConfirmations(adapter, report)
      } catch (err) {
        report.failed++
        unreachable.add(adapter.chainId)
        log.warn(
          { err, chainId: adapter.chainId },
          'could not check the chain instance or confirmations; will try again',
        )
      }
    }
    const cutoff = Date.now() - minAgeMs
    // In the order they were signed, one relayer's in its chain's order (EVM: nonce order), so
    // that a node that lost several gets them back without gaps.
    const records = inSequence((await journal.pending()).filter((r) => r.updatedAt.getTime() <= cutoff && mine(r)))
    const pass: Pass = { repriced: new Set(), bytes: new Map() }
    for (const record of records) {
      if (unreachable.has(record.chainId)) continue
      const adapter = adapters.find((a) => a.chainId === record.chainId)
      if (!adapter) {
        log.warn(
          { intentHash: record.intentHash, chainId: record.chainId },
          'journaled execution on a chain this gateway no longer serves; left pending',
        )
        continue
      }
      report.checked++
      try {
        await reconcileRecord(adapter, record, report, { minAgeMs: Math.max(minAgeMs, 1), pass })
      } catch (err) {
        report.failed++
        // One unreachable chain costs one timeout per pass, not one per record.
        unreachable.add(record.chainId)
        log.warn(
          { err, intentHash: record.intentHash, chainId: record.chainId },
          'could not reconcile a journaled execution; will try again',
        )
      }
    }
    await fillGaps(report, unreachable)
    if (
      report.checked > 0 ||
      report.confirmed > 0 ||
      report.reopened > 0 ||
      report.retired > 0 ||
      report.failed > 0 ||
      report.gapsFilled > 0
    )
      log.info(report, 'reconciliation pass')
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
