// Retention: what the journal settled for good is deleted once it is older than the retention
// time (RETENTION_DAYS), checked every hour. Replays of a pruned intent are answered by the chain
// again (see Journal.prune); open executions and unspent payments are never pruned.
import type { Logger } from 'pino'
import type { Journal } from '../ports/journal.ts'

export type StartRetentionParameters = {
  journal: Journal
  /** How long settled records are kept; 0 keeps them forever (nothing is started). */
  retentionMs: number
  /** How often to prune; default one hour. */
  intervalMs?: number
  logger: Logger
}

export function startRetention({ journal, retentionMs, intervalMs = 3_600_000, logger }: StartRetentionParameters): {
  stop(): Promise<void>
} {
  if (retentionMs <= 0) return { stop: async () => {} }
  const log = logger.child({ module: 'retention' })
  let pass: Promise<void> | undefined
  const prune = () => {
    pass = (async () => {
      try {
        const pruned = await journal.prune(new Date(Date.now() - retentionMs))
        if (pruned.executions > 0 || pruned.payments > 0)
          log.info(pruned, 'settled records older than the retention time pruned')
      } catch (err) {
        log.warn({ err }, 'the journal could not be pruned now; tried again at the next interval')
      }
    })()
  }
  const timer = setInterval(prune, intervalMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await pass
    },
  }
}
