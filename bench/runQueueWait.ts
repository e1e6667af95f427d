// How long the bench's processes waited for a core while they could run (thirty-sixth session): the
// gateway, anvil and wrk share the machine's two cores, and a thread that is runnable while both are
// busy waits in the kernel's run queue. Linux counts that wait per thread (/proc/<pid>/task/<tid>/
// schedstat: time on a core, time waiting runnable, in ns). This samples every thread of each
// process every 50 ms and prints, for each wrk run it saw (its target named), each process's time on
// a core and time waiting runnable, summed over its threads, as shares of one core over the run's
// wall time (up to 200% on two cores; the run's first and last half second left out), and the
// gateway's event-loop thread's apart.
//   npx tsx bench/runQueueWait.ts 110 > /tmp/rqw.txt &    # then, within those seconds:
//   BENCH_VALIDATE_CONNECTIONS=10 npm run bench -- --only=validate
import { readdirSync, readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

const seconds = Number(process.argv[2] ?? 150)
const kinds: [string, RegExp][] = [
  ['gateway', /dist\/main\.js/],
  ['anvil', /anvil.*--port/],
  ['wrk', /(^|\/)wrk /],
]
type Thread = { kind: string; pid: number; tid: number; comm: string; cpu: number; wait: number }
type Sample = { at: number; threads: Thread[]; wrk: Map<number, string> }

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
function processes(): Map<number, { kind: string; command: string }> {
  const found = new Map<number, { kind: string; command: string }>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const command = read(`/proc/${entry}/cmdline`)?.replaceAll('\0', ' ')
    const kind = command && kinds.find(([, pattern]) => pattern.test(command))?.[0]
    if (kind) found.set(Number(entry), { kind, command: command! })
  }
  return found
}
function sample(known: Map<number, { kind: string; command: string }>): Sample {
  const threads: Thread[] = []
  const wrk = new Map<number, string>()
  for (const [pid, { kind, command }] of known) {
    if (kind === 'wrk') wrk.set(pid, command.split(' ').find((w) => w.startsWith('http')) ?? command)
    let tids: string[]
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      const stat = read(`/proc/${pid}/task/${tid}/schedstat`)
      if (!stat) continue
      const [cpu, wait] = stat.split(' ').map(Number)
      const comm = read(`/proc/${pid}/task/${tid}/comm`)?.trim() ?? '?'
      threads.push({ kind, pid, tid: Number(tid), comm, cpu: cpu!, wait: wait! })
    }
  }
  return { at: performance.now(), threads, wrk }
}

const samples: Sample[] = []
let known = processes()
let lookedAt = performance.now()
const until = performance.now() + seconds * 1000
while (performance.now() < until) {
  if (performance.now() - lookedAt > 500) {
    known = processes()
    lookedAt = performance.now()
  }
  samples.push(sample(known))
  await sleep(50)
}

// Each wrk run: the samples from its first to its last sighting.
const runs = new Map<number, { target: string; from: number; to: number }>()
for (const [i, s] of samples.entries())
  for (const [pid, target] of s.wrk) {
    const run = runs.get(pid) ?? { target, from: i, to: i }
    run.to = i
    runs.set(pid, run)
  }
const near = (at: number) => samples.reduce((best, s) => (Math.abs(s.at - at) < Math.abs(best.at - at) ? s : best))
const share = (ns: number, wallMs: number) => `${((100 * ns) / (wallMs * 1e6)).toFixed(1).padStart(5)}%`
for (const [pid, { target, from, to }] of [...runs].sort((a, b) => a[1].from - b[1].from)) {
  const [first, last] = [samples[from]!.at + 500, samples[to]!.at - 500]
  if (last - first < 1000) continue
  const [a, b] = [near(first), near(last)]
  const wall = b.at - a.at
  const before = new Map(a.threads.map((t) => [t.tid, t]))
  const totals = new Map<string, { cpu: number; wait: number }>()
  let loop: { cpu: number; wait: number } | undefined
  for (const t of b.threads) {
    const start = before.get(t.tid)
    if (!start) continue
    const d = { cpu: t.cpu - start.cpu, wait: t.wait - start.wait }
    const sum = totals.get(t.kind) ?? { cpu: 0, wait: 0 }
    totals.set(t.kind, { cpu: sum.cpu + d.cpu, wait: sum.wait + d.wait })
    // The gateway's event loop runs on its main thread (tid = pid).
    if (t.kind === 'gateway' && t.tid === t.pid) loop = d
  }
  process.stdout.write(`wrk ${pid} → ${target} (${(wall / 1000).toFixed(1)} s)\n`)
  for (const [kind, { cpu, wait }] of totals)
    process.stdout.write(`  ${kind.padEnd(8)} on a core ${share(cpu, wall)}  waiting runnable ${share(wait, wall)}\n`)
  if (loop)
    process.stdout.write(
      `  gateway's event-loop thread: on a core ${share(loop.cpu, wall)}, waiting runnable ${share(loop.wait, wall)} (${(loop.wait / Math.max(1, loop.cpu)).toFixed(2)} of its time on a core)\n`,
    )
}
