// WORKERS: how many worker processes serve the one port (Node's cluster). 1, the default, is one
// process as before. More than one needs a journal that several processes share with relayer-key
// leases (DATABASE_URL, PostgreSQL): each worker is then an instance of a fleet, with its own
// INSTANCE_ID derived from the configured one. The SQLite journal is one process's (its file is
// locked exclusively), so WORKERS > 1 without a shared engine (DATABASE_URL) is refused (docs/performance.md). Rate
// limits, standing and budgets are counted in each process's memory unless REDIS_URL shares them:
// N workers would each allow the whole amount, N times in all, so WORKERS > 1 needs REDIS_URL too.
// The caps on what one process holds (connections, event streams) are divided among the workers
// (cluster/perWorkerServerConfig.ts).
import { readInteger } from './readInteger.ts'

/** `sharedJournal`: the storage engine the configuration chooses is shared by several processes (StorageEngine.shared). */
export function workersConfig(
  env: Record<string, string | undefined>,
  { sharedJournal }: { sharedJournal: boolean },
): { value: number; problems: string[] } {
  const problems: string[] = []
  const workers = readInteger(env, 'WORKERS', { min: 1, max: 256, fallback: 1 }, problems) ?? 1
  if (workers > 1 && !sharedJournal) {
    problems.push(
      'WORKERS: more than 1 worker needs DATABASE_URL (a PostgreSQL journal shared by lease); the SQLite journal belongs to one process',
    )
  }
  if (workers > 1 && !env.REDIS_URL?.trim()) {
    problems.push(
      'WORKERS: more than 1 worker needs REDIS_URL (rate limits, standing and budgets shared by the workers); without it each worker counts in its own memory and allows the whole limit, N times in all',
    )
  }
  return { value: workers, problems }
}

/** A worker's instance id: the configured one and the worker's number, unique among the workers. */
export function workerInstanceId(instanceId: string, worker: number): string {
  const suffix = `-w${worker}`
  return `${instanceId.slice(0, 64 - suffix.length)}${suffix}`
}
