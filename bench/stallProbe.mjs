// Loaded into the gateway by the bench to see where validate's latency tail goes (docs/performance.md,
// "sixth session"): BENCH_NODE_FLAGS='--max-semi-space-size=4 --import=./bench/stallProbe.mjs'.
// It records, as JSON lines in STALL_PROBE_DIR (default the system's temporary directory), every
// V8 collection (its kind and pause) and every stretch of more than 2.5 ms in which a 1 ms timer
// did not run, with how much of that stretch the main thread ran and how long it waited, runnable,
// for a core (/proc/thread-self/schedstat: the kernel's own counts). `bench/tailCauses.ts` reads
// them beside the gateway's request log. Not part of the gateway: it is loaded only by that flag.
import { appendFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PerformanceObserver, performance } from 'node:perf_hooks'

const file = join(process.env.STALL_PROBE_DIR ?? tmpdir(), `stall-${process.pid}.jsonl`)
const origin = performance.timeOrigin
const pending = []

new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    pending.push({ t: 'gc', at: origin + e.startTime, ms: e.duration, kind: e.detail?.kind })
}).observe({ entryTypes: ['gc'] })

/** The main thread's time on a core and waiting for one, in ms (schedstat's first two fields, ns). */
const sched = () => {
  const [ran, waited] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')
  return { ran: Number(ran) / 1e6, waited: Number(waited) / 1e6 }
}

let last = performance.now()
let lastSched = sched()
setInterval(() => {
  const now = performance.now()
  const s = sched()
  if (now - last > 2.5)
    pending.push({
      t: 'gap',
      at: origin + last,
      ms: now - last,
      ran: s.ran - lastSched.ran,
      waited: s.waited - lastSched.waited,
    })
  last = now
  lastSched = s
}, 1).unref()

setInterval(() => {
  if (pending.length > 0)
    appendFileSync(
      file,
      `${pending
        .splice(0)
        .map((e) => JSON.stringify(e))
        .join('\n')}\n`,
    )
}, 1000).unref()
