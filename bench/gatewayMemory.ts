// What the bench's gateway holds in memory over a run, by kind (thirty-ninth session): its resident
// memory from /proc/<pid>/status (anonymous and file-backed) beside V8's heap as the gateway's own
// /metrics reports it (prom-client's default metrics: heap used, heap total, external). The bench
// prints the peak; this says whether a peak is V8's heap, the space V8 keeps beside it, or native
// memory. Every 250 ms, a line every 3 s, then the peak and what made it.
//   npx tsx bench/gatewayMemory.ts 160 > /tmp/mem.txt &    # then, within those seconds:
//   npm run bench -- --only=execute
import { readdirSync, readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

const seconds = Number(process.argv[2] ?? 160)
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1).padStart(6)
const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** The gateway the bench started (`dist/main.js`) and the port in its environment. */
function findGateway(): { pid: string; port: string } | undefined {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || !read(`/proc/${pid}/cmdline`)?.includes('dist/main.js')) continue
    const port = read(`/proc/${pid}/environ`)
      ?.split('\0')
      .find((e) => e.startsWith('PORT='))
      ?.slice(5)
    if (port) return { pid, port }
  }
  return undefined
}

type Sample = {
  at: number
  rss: number
  anon: number
  file: number
  heapUsed: number
  heapTotal: number
  external: number
}

async function sample(pid: string, port: string): Promise<Sample | undefined> {
  const status = read(`/proc/${pid}/status`)
  if (!status) return undefined
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) * 1024
  const metric = (text: string, name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN)
  const text = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(500) })
    .then((r) => r.text())
    .catch(() => '')
  return {
    at: Date.now(),
    rss: kib('VmRSS'),
    anon: kib('RssAnon'),
    file: kib('RssFile'),
    heapUsed: metric(text, 'nodejs_heap_size_used_bytes'),
    heapTotal: metric(text, 'nodejs_heap_size_total_bytes'),
    external: metric(text, 'nodejs_external_memory_bytes'),
  }
}

const line = (s: Sample, start: number) =>
  `${((s.at - start) / 1000).toFixed(1).padStart(6)} s  RSS ${mb(s.rss)} MB (anonymous ${mb(s.anon)}, files ${mb(s.file)})  V8 heap used ${mb(s.heapUsed)}, total ${mb(s.heapTotal)}, external ${mb(s.external)}; anonymous beyond the heap's total ${mb(s.anon - s.heapTotal)}`

const start = Date.now()
let gateway: { pid: string; port: string } | undefined
let peak: Sample | undefined
let printed = 0
while (Date.now() - start < seconds * 1000) {
  gateway ??= findGateway()
  const s = gateway && (await sample(gateway.pid, gateway.port))
  if (gateway && !s) gateway = undefined
  if (s) {
    if (!peak || s.rss > peak.rss) peak = s
    if (s.at - printed >= 3000) {
      printed = s.at
      process.stdout.write(`${line(s, start)}\n`)
    }
  }
  await sleep(250)
}
if (peak) process.stdout.write(`peak\n${line(peak, start)}\n`)
