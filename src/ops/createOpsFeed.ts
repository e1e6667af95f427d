// The console's live feed: ONE reader per instance follows the journal's change feed (and the
// switches) and fans the events out to every viewer, so that ten open pages cost the database what
// one does. Each viewer's queue is bounded: a viewer that cannot keep up loses its queued events and
// is sent the next snapshot instead (which carries everything the page shows), so memory stays flat
// whatever the load and however slow a viewer's network.
import type { Logger } from 'pino'
import type { ChangePosition, Journal } from '../ports/journal.ts'
import type { OpsSwitches } from './createOpsSwitches.ts'
import type { OpsState } from './gatherOpsState.ts'
import { type IntentView, toIntentView } from './toIntentView.ts'

export type OpsViewer = { close(): void }

export type OpsFeed = {
  /** `write` sends one SSE frame and answers false when the connection's buffer is full; `drained` is called when it empties. */
  subscribe(sink: { write(frame: string): boolean; onDrain(listener: () => void): void }): OpsViewer
  /** The last settled executions seen (newest first), at most `settledShown`. */
  settled(): IntentView[]
  viewers(): number
  /** Queued frames over all viewers (the bound's check). */
  queued(): number
  start(): Promise<void>
  stop(): Promise<void>
}

export type CreateOpsFeedParameters = {
  journal: Journal
  switches: OpsSwitches
  snapshot: () => Promise<OpsState>
  logger: Logger
  pollMs: number
  /** Frames one viewer may have queued before it is resynchronized with a snapshot. */
  buffer: number
  settledShown: number
  stuckAfterMs: number
  /** How often a snapshot goes out even when nothing changed in the journal (balances, endpoints). */
  snapshotEveryMs?: number | undefined
}

type Viewer = { write(frame: string): boolean; queue: string[]; blocked: boolean; resync: boolean }

export function createOpsFeed({
  journal,
  switches,
  snapshot,
  logger,
  pollMs,
  buffer,
  settledShown,
  stuckAfterMs,
  snapshotEveryMs = 2_000,
}: CreateOpsFeedParameters): OpsFeed {
  const log = logger.child({ module: 'ops-feed' })
  const viewers = new Set<Viewer>()
  let settled: IntentView[] = []
  let position: ChangePosition | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let tick: Promise<void> | undefined
  let lastSnapshot = 0
  let latest: string | undefined
  let switchesChanged = false
  let unsubscribe: (() => void) | undefined

  const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
  const deliver = (viewer: Viewer, text: string) => {
    if (viewer.blocked || viewer.resync) {
      if (viewer.resync) return
      viewer.queue.push(text)
      // Behind by more than the bound: drop what is queued; the next snapshot says it all.
      if (viewer.queue.length > buffer) {
        viewer.queue.length = 0
        viewer.resync = true
      }
      return
    }
    if (!viewer.write(text)) viewer.blocked = true
  }
  const broadcast = (text: string) => {
    for (const viewer of viewers) deliver(viewer, text)
  }
  const sendSnapshot = async () => {
    lastSnapshot = Date.now()
    latest = frame('state', await snapshot())
    for (const viewer of viewers) {
      if (viewer.resync && !viewer.blocked) {
        viewer.resync = false
        if (!viewer.write(latest)) viewer.blocked = true
      } else deliver(viewer, latest)
    }
  }
  const readChanges = async () => {
    position ??= await journal.changePositionAt(Date.now() - 15 * 60_000)
    let changed = false
    for (let round = 0; round < 10; round++) {
      const { records, position: next } = await journal.changesAfter(position, 200)
      position = next
      const now = Date.now()
      for (const record of records) {
        const view = toIntentView(record, { now, stuckAfterMs })
        if (record.state !== 'claimed' && record.state !== 'pending') {
          settled = [
            view,
            ...settled.filter((s) => !(s.intentHash === view.intentHash && s.chainId === view.chainId)),
          ].slice(0, settledShown)
        }
        if (viewers.size > 0) broadcast(frame('intent', view))
        changed = true
      }
      if (records.length < 200) break
    }
    return changed
  }
  const step = async () => {
    try {
      const changed = await readChanges()
      if (viewers.size > 0 && (changed || switchesChanged || Date.now() - lastSnapshot >= snapshotEveryMs)) {
        switchesChanged = false
        await sendSnapshot()
      }
    } catch (err) {
      log.warn({ err }, 'the console feed could not read the journal; tried again at the next poll')
    }
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      tick = step().finally(schedule)
    }, pollMs)
    timer.unref()
  }

  return {
    subscribe(sink) {
      const viewer: Viewer = { write: (text) => sink.write(text), queue: [], blocked: false, resync: false }
      viewers.add(viewer)
      sink.onDrain(() => {
        viewer.blocked = false
        while (viewer.queue.length > 0 && !viewer.blocked)
          if (!viewer.write(viewer.queue.shift()!)) viewer.blocked = true
        if (!viewer.blocked && viewer.resync && latest) {
          viewer.resync = false
          if (!viewer.write(latest)) viewer.blocked = true
        }
      })
      // A new viewer gets the current picture at once (the last snapshot, or a fresh one at the next poll).
      if (latest) deliver(viewer, latest)
      else lastSnapshot = 0
      return {
        close() {
          viewers.delete(viewer)
          viewer.queue.length = 0
        },
      }
    },
    settled: () => settled,
    viewers: () => viewers.size,
    queued: () => [...viewers].reduce((n, v) => n + v.queue.length, 0),
    async start() {
      unsubscribe = switches.onChange(() => {
        switchesChanged = true
      })
      await readChanges().catch((err: unknown) =>
        log.warn({ err }, 'the console feed could not read the journal at start-up'),
      )
      schedule()
    },
    async stop() {
      stopped = true
      unsubscribe?.()
      clearTimeout(timer)
      await tick
      viewers.clear()
    },
  }
}
