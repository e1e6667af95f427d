// The primary process of WORKERS > 1 (Node's cluster): it serves no request itself. It forks the
// workers, hands each what the primary alone knows (the embedded devnet's chains and settings: the
// devnet starts once, here), restarts a worker that dies, and on SIGTERM/SIGINT stops every worker
// cleanly (each closes its gateway as one process does) before it stops the devnet and exits.
// The workers share the port: the primary accepts connections and passes them round-robin.
import cluster, { type Worker } from 'node:cluster'
import type { Logger } from 'pino'

/** What the primary sends a worker before it builds its gateway. */
export type WorkerStart = { type: 'start'; worker: number; overrides: Record<string, unknown>; onDevnet: boolean }
/** What a worker sends once it listens. */
export type WorkerListening = { type: 'listening'; worker: number; port: number }

export const workerEnvName = 'INTENT_GATEWAY_WORKER'

export type RunPrimaryParameters = {
  workers: number
  /** Configuration the workers cannot read from the environment (the devnet's), sent to each. */
  overrides: Record<string, unknown>
  onDevnet: boolean
  logger: Logger
  /** Once the first worker listens (the devnet's welcome is printed here). */
  onListening?: (port: number) => Promise<void> | void
  /** After every worker has exited: stop what the primary started (the devnet, tracing). */
  onStopped: () => Promise<void>
}

/** A worker that dies within this long of its start is restarted only after a pause. */
const quickDeathMs = 5_000

export function runPrimary({
  workers,
  overrides,
  onDevnet,
  logger,
  onListening,
  onStopped,
}: RunPrimaryParameters): void {
  // Advanced serialization: the configuration holds bigints (fees, limits).
  cluster.setupPrimary({ serialization: 'advanced' })
  let stopping = false
  let anyListened = false
  const startedAt = new Map<Worker, number>()
  const indexOf = new Map<Worker, number>()

  const fork = (index: number) => {
    const worker = cluster.fork({ [workerEnvName]: String(index) })
    startedAt.set(worker, Date.now())
    indexOf.set(worker, index)
    worker.on('message', (message: WorkerListening | { type: 'ready' }) => {
      // The worker asks once its handler is in place (a message sent earlier could be lost).
      if (message?.type === 'ready')
        return void worker.send({ type: 'start', worker: index, overrides, onDevnet } satisfies WorkerStart)
      if (message?.type !== 'listening') return
      logger.info({ worker: index, pid: worker.process.pid, port: message.port }, `worker ${index} listening`)
      if (!anyListened) {
        anyListened = true
        void onListening?.(message.port)
      }
    })
  }

  cluster.on('exit', (worker, code, signal) => {
    const index = indexOf.get(worker)!
    const lived = Date.now() - (startedAt.get(worker) ?? 0)
    startedAt.delete(worker)
    indexOf.delete(worker)
    if (stopping) return
    if (!anyListened) {
      // No worker has ever started: the same error would repeat forever. Stop, as one process would.
      logger.error({ worker: index, code, signal }, 'a worker exited before any worker listened: stopping')
      void stop('worker failed at start-up', 1)
      return
    }
    logger.error({ worker: index, pid: worker.process.pid, code, signal }, `worker ${index} exited: starting another`)
    setTimeout(() => !stopping && fork(index), lived < quickDeathMs ? 1_000 : 100)
  })

  async function stop(reason: string, exitCode = 0) {
    if (stopping) return
    stopping = true
    logger.info({ reason }, 'stopping the workers')
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead())
    await Promise.all(
      alive.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.once('exit', () => resolve())
            w.process.kill('SIGTERM')
          }),
      ),
    )
    await onStopped()
    process.exit(exitCode)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))

  for (let i = 1; i <= workers; i++) fork(i)
  logger.info({ workers }, `started ${workers} worker processes`)
}

/** In a worker: waits for the primary's start message. */
export function awaitWorkerStart(): Promise<WorkerStart> {
  return new Promise((resolve) => {
    const onMessage = (message: WorkerStart) => {
      if (message?.type !== 'start') return
      process.off('message', onMessage)
      resolve(message)
    }
    process.on('message', onMessage)
    process.send!({ type: 'ready' })
  })
}
