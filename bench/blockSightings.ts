// How late the gateway's receipt watch saw each block, and what batches waiting for a block due
// did meanwhile: bench/blockObserver.ts's file (when each block first appeared) against a gateway
// log written with bench/experiments/wave-timeline.patch and EXP_DIAG=1 (thirty-second session).
//   npx tsx bench/blockSightings.ts /tmp/blocks.jsonl /tmp/gw.log
import { readFileSync } from 'node:fs'

type Diag = {
  diag: string
  t: number
  at?: number
  n?: number
  asked?: number
  waiting?: number
  dueIn?: number | null
  waited?: number
}

const [blocksFile, logFile] = process.argv.slice(2)
if (!blocksFile || !logFile) throw new Error('usage: blockSightings.ts <observer file> <gateway log>')

const jsonLines = <T>(file: string, keep: (text: string) => boolean): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(keep)
    .flatMap((text) => {
      try {
        return [JSON.parse(text) as T]
      } catch {
        return [] // a line another writer cut in two
      }
    })

const made = new Map(jsonLines<{ n: number; at: number }>(blocksFile, (t) => t.startsWith('{')).map((b) => [b.n, b.at]))
const lines = jsonLines<Diag>(logFile, (t) => t.includes('"diag"'))
const sortedMade = [...made.values()].sort((a, b) => a - b)

/** The deciles of `values`, rounded. */
function deciles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((q) => Math.round(at(q))).join(' / ')
}

// Each head's first sighting by the watch (every read is logged, in the order asked).
const reads = lines.filter((l) => l.diag === 'head').sort((a, b) => a.asked! - b.asked!)
const firstSeen = new Map<number, Diag>()
for (const read of reads) if (!firstSeen.has(read.n!)) firstSeen.set(read.n!, read)
const lateness = [...firstSeen].flatMap(([n, read]) => (made.has(n) ? [read.at! - made.get(n)!] : []))
const askedLate = [...firstSeen].flatMap(([n, read]) => (made.has(n) ? [read.asked! - made.get(n)!] : []))
console.log(`blocks seen by the watch: ${lateness.length}`)
console.log(`  ms from made to seen, deciles: ${deciles(lateness)}`)
console.log(`  ms from made to the read that saw it asked, deciles: ${deciles(askedLate)}`)

// The log's performance.now() against Date.now(): the 'block' lines carry both.
const offsets = lines.filter((l) => l.diag === 'block' && l.at !== undefined).map((l) => l.at! - l.t)
const offset = offsets.sort((a, b) => a - b)[Math.floor(offsets.length / 2)] ?? 0
const flushes = lines.filter((l) => l.diag === 'flush' && (l.n ?? 0) >= 4)
/** ms since the last block made before `at` (Date.now()). */
const sinceBlock = (at: number) => {
  let i = sortedMade.length - 1
  while (i >= 0 && sortedMade[i]! > at) i--
  return i < 0 ? Number.NaN : at - sortedMade[i]!
}
// A batch that waited for a block due and did not see it goes `dueLateMs` (5) after its due time:
// `dueIn` about -5 at its flush, having waited longer than the pause (5 ms) that ends a wave.
const gaveUp = flushes.filter((f) => (f.dueIn ?? 0) <= -3 && (f.dueIn ?? 0) >= -15 && (f.waited ?? 0) > 10)
console.log(`batches of 4 or more calls: ${flushes.length}`)
console.log(`  that waited for a block due and went without seeing it (due ~5 ms before): ${gaveUp.length}`)
if (gaveUp.length > 0)
  console.log(
    `    ms after the block was made that they went, deciles: ${deciles(gaveUp.map((f) => sinceBlock(f.t + offset)))}`,
  )
