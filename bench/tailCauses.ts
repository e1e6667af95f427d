// Where validate's slow requests come from (docs/performance.md, "sixth session"): reads the
// gateway's request log (BENCH_GATEWAY_LOG) and what bench/stallProbe.mjs recorded in the same run,
// and prints the requests' time inside the gateway (from its `request` lines: reply.elapsedTime,
// onRequest to the answer), the collections and the event loop's stalls, and how many slow requests
// overlap a stall of the loop, only a collection, or neither.
//
//   rm -f /tmp/gw.log /tmp/stall-*.jsonl
//   BENCH_GATEWAY_LOG=/tmp/gw.log BENCH_NODE_FLAGS='--max-semi-space-size=4 --import=./bench/stallProbe.mjs' \
//     BENCH_VALIDATE_CONNECTIONS=10 npm run bench -- --only=validate
//   npx tsx bench/tailCauses.ts /tmp/gw.log /tmp/stall-*.jsonl
import { readFileSync } from 'node:fs'

type Collection = { t: 'gc'; at: number; ms: number; kind: number }
type Stall = { t: 'gap'; at: number; ms: number; ran: number; waited: number }
type Span = { start: number; end: number; ms: number }

const [logPath, ...probePaths] = process.argv.slice(2)
if (!logPath || probePaths.length === 0) {
  process.stderr.write('usage: npx tsx bench/tailCauses.ts <gateway log> <stall-*.jsonl>...\n')
  process.exit(2)
}

const jsonLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

const events = probePaths.flatMap(jsonLines) as (Collection | Stall)[]
const collections = events.filter((e): e is Collection => e.t === 'gc')
const stalls = events.filter((e): e is Stall => e.t === 'gap')
const requests: Span[] = jsonLines(logPath)
  .filter((l) => l.msg === 'request' && typeof l.ms === 'number')
  .map((l) => ({ start: (l.time as number) - (l.ms as number), end: l.time as number, ms: l.ms as number }))
  .sort((a, b) => a.start - b.start)

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
const f1 = (n: number) => n.toFixed(1)
const overlaps = (span: { start: number; end: number }, e: { at: number; ms: number }) =>
  e.at < span.end && e.at + e.ms > span.start

const times = requests.map((r) => r.ms).sort((a, b) => a - b)
process.stdout.write(
  `requests ${requests.length}: time inside the gateway p50 ${pct(times, 0.5)} ms, p90 ${pct(times, 0.9)}, p99 ${pct(times, 0.99)}, max ${times.at(-1)}\n`,
)

const scavenges = collections
  .filter((c) => c.kind === 1)
  .map((c) => c.ms)
  .sort((a, b) => a - b)
const others = collections
  .filter((c) => c.kind !== 1)
  .map((c) => c.ms)
  .sort((a, b) => a - b)
process.stdout.write(
  `collections: ${scavenges.length} scavenges (pause p50 ${f1(pct(scavenges, 0.5))} ms, p99 ${f1(pct(scavenges, 0.99))}, max ${f1(scavenges.at(-1) ?? 0)}), ${others.length} others (max ${f1(others.at(-1) ?? 0)} ms)\n`,
)

const withoutCollection = stalls.filter((s) => !collections.some((c) => c.at >= s.at - 0.5 && c.at < s.at + s.ms))
const sum = (xs: Stall[], k: 'ms' | 'ran' | 'waited') => xs.reduce((a, s) => a + s[k], 0)
process.stdout.write(
  `loop stalls over 2.5 ms: ${stalls.length} (${f1(sum(stalls, 'ms'))} ms: the main thread ran ${f1(sum(stalls, 'ran'))}, waited for a core ${f1(sum(stalls, 'waited'))})\n` +
    `  without a collection in them: ${withoutCollection.length} (${f1(sum(withoutCollection, 'ms'))} ms: ran ${f1(sum(withoutCollection, 'ran'))}, waited ${f1(sum(withoutCollection, 'waited'))})\n`,
)
const longest = [...withoutCollection].sort((a, b) => b.ms - a.ms).slice(0, 8)
process.stdout.write(
  `  the longest of those: ${longest.map((s) => `${f1(s.ms)} (ran ${f1(s.ran)}, waited ${f1(s.waited)})`).join(', ')}\n`,
)

// A request of 3 ms or more inside the gateway: what it overlapped.
const slow = requests.filter((r) => r.ms >= 3)
let stalled = 0
let collected = 0
for (const r of slow) {
  if (stalls.some((s) => overlaps(r, s))) stalled++
  else if (collections.some((c) => c.ms > 0.3 && overlaps(r, c))) collected++
}
process.stdout.write(
  `requests of 3 ms or more inside the gateway: ${slow.length} (${f1((100 * slow.length) / Math.max(1, requests.length))}%): ` +
    `${stalled} overlap a loop stall, ${collected} only a collection over 0.3 ms, ${slow.length - stalled - collected} neither\n`,
)
