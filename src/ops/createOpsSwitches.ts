// The console's switches on one instance: each is written to the journal's audit first (who,
// when, what), then taken from the journal by every instance. One reader per instance polls the
// switches in force every `pollMs` (PostgreSQL: the whole fleet within a poll; a switch made here
// takes effect here at once), so that an instance's view never runs ahead of what is recorded.
import type { Logger } from 'pino'
import type { OpsAction, OpsAuditEntry, OpsSwitchStore } from '../ports/opsSwitchStore.ts'
import type { RelayerLeases } from '../ports/relayerLeases.ts'

export type OpsSwitches = {
  readonly instanceId: string
  /** The pause in force on a chain, if any. */
  pausedOn(chainId: string): OpsAuditEntry | undefined
  /** Every chain paused, by CAIP-2 id. */
  paused(): OpsAuditEntry[]
  /** Every instance drained. */
  drained(): OpsAuditEntry[]
  /** Whether this instance is drained. */
  draining(): boolean
  /** Journals the switch (durable), then applies it here at once; the others take it at their next poll. */
  apply(entry: {
    actor: string
    action: OpsAction
    target: string
    detail?: string | undefined
  }): Promise<OpsAuditEntry>
  /** Reads the switches in force from the journal now. */
  refresh(): Promise<void>
  /** Called after every change of the switches in force (this instance's or another's). */
  onChange(listener: () => void): () => void
  /** The relayer leases as the pools see them, `draining()` answered from here. */
  drainable(leases: RelayerLeases): RelayerLeases
  start(): Promise<void>
  stop(): void
}

export type CreateOpsSwitchesParameters = {
  store: OpsSwitchStore
  instanceId: string
  /** How often the switches in force are read again (default 500 ms: within the 2 s every instance has). */
  pollMs?: number | undefined
  logger: Logger
}

export function createOpsSwitches({
  store,
  instanceId,
  pollMs = 500,
  logger,
}: CreateOpsSwitchesParameters): OpsSwitches {
  const log = logger.child({ module: 'ops-switches' })
  let pausedChains = new Map<string, OpsAuditEntry>()
  let drainedInstances = new Map<string, OpsAuditEntry>()
  let seen = ''
  const listeners = new Set<() => void>()
  let timer: ReturnType<typeof setInterval> | undefined
  let reading: Promise<void> | undefined

  const read = async () => {
    const entries = await store.switches()
    const key = entries.map((e) => e.id).join(',')
    if (key === seen) return
    const before = seen
    seen = key
    pausedChains = new Map(entries.filter((e) => e.action === 'pause').map((e) => [e.target, e]))
    drainedInstances = new Map(entries.filter((e) => e.action === 'drain').map((e) => [e.target, e]))
    if (before !== '' || entries.length > 0)
      log.info(
        { paused: [...pausedChains.keys()], drained: [...drainedInstances.keys()] },
        'operator switches in force',
      )
    for (const listener of listeners) {
      try {
        listener()
      } catch (err) {
        log.warn({ err }, 'a listener of the switches failed')
      }
    }
  }
  // One read at a time: a slow store never piles reads up.
  const refresh = () => (reading ??= read().finally(() => (reading = undefined)))

  return {
    instanceId,
    pausedOn: (chainId) => pausedChains.get(chainId),
    paused: () => [...pausedChains.values()],
    drained: () => [...drainedInstances.values()],
    draining: () => drainedInstances.has(instanceId),
    async apply(entry) {
      // Journaled before it takes effect: a crash between the two leaves it recorded, and applied at the next start.
      const written = await store.append(entry)
      log.info(
        { actor: written.actor, action: written.action, target: written.target, id: written.id },
        'operator switch journaled',
      )
      await reading
      await refresh()
      return written
    },
    refresh,
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    drainable(leases) {
      return Object.assign(Object.create(leases) as RelayerLeases, { draining: () => drainedInstances.has(instanceId) })
    },
    async start() {
      await refresh()
      timer = setInterval(() => {
        refresh().catch((err: unknown) =>
          log.warn({ err }, 'the switches could not be read from the journal; the last ones read stay in force'),
        )
      }, pollMs)
      timer.unref()
    },
    stop() {
      clearInterval(timer)
    },
  }
}
