// One sample of a running gateway process, as an operator would read it: resident memory and open
// file descriptors from /proc/<pid>, heap used and event-loop delay p99 from its GET /metrics
// (prom-client's default process metrics; its event-loop histogram is reset at each scrape, so the
// p99 is over the last interval), the journal's size on disk (SQLite file + WAL + shared memory),
// and the keys under its Redis prefix.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import type { Redis } from 'ioredis'

export type Sample = {
  /** Seconds since the load started. */
  t: number
  rssMB: number
  heapUsedMB: number
  openFds: number
  eventLoopP99Ms: number
  journalMB: number
  redisKeys: number
}

export type SampleSource = { pid: number; url: string; journalPath: string; redis?: { client: Redis; prefix: string } }

const metric = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
  if (!line) throw new Error(`GET /metrics has no ${name}`)
  return Number(line.slice(line.lastIndexOf(' ') + 1))
}

const fileMB = (path: string) => {
  try {
    return statSync(path).size / 2 ** 20
  } catch {
    return 0
  }
}

export async function sampleGateway(source: SampleSource, t: number): Promise<Sample> {
  const status = readFileSync(`/proc/${source.pid}/status`, 'utf8')
  const rssKB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1])
  const openFds = readdirSync(`/proc/${source.pid}/fd`).length
  const metrics = await (await fetch(`${source.url}/metrics`, { signal: AbortSignal.timeout(15_000) })).text()
  let redisKeys = 0
  if (source.redis) {
    let cursor = '0'
    do {
      const [next, keys] = await source.redis.client.scan(cursor, 'MATCH', `${source.redis.prefix}*`, 'COUNT', 1000)
      cursor = next
      redisKeys += keys.length
    } while (cursor !== '0')
  }
  return {
    t,
    rssMB: rssKB / 1024,
    heapUsedMB: metric(metrics, 'nodejs_heap_size_used_bytes') / 2 ** 20,
    openFds,
    eventLoopP99Ms: metric(metrics, 'nodejs_eventloop_lag_p99_seconds') * 1000,
    journalMB: fileMB(source.journalPath) + fileMB(`${source.journalPath}-wal`) + fileMB(`${source.journalPath}-shm`),
    redisKeys,
  }
}
