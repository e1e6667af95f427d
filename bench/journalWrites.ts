// The CPU of an execute's three journal writes (claim, the signed record, settle), in-process: on
// the SQLite journal, a journal file in a scratch directory; with JOURNAL=postgres, the PostgreSQL
// journal on a database of its own (TEST_DATABASE_URL's server, dropped after; the CPU
// per write is this process's; the server's is printed beside it, as the machine's CPU outside this
// process over the writes, so run it on a quiet machine). `BATCH` intents at a time (the group
// commit takes what one turn of the event loop asks for), `ROUNDS` rounds, the median per write.
// Intent hashes are spread over the key space as real ones are (a hash of the counter), so each
// claim meets the unique index where a real one would; `PREFILL` claims that many intents before
// the measure, as a journal that has run a while holds them (on SQLite, 50,000 of them took the
// claim from ~30 to ~100 µs on 2026-12-01: index pages out of SQLite's cache).
//
//   npx tsx bench/journalWrites.ts            BATCH=50 ROUNDS=20 PREFILL=0 JOURNAL=sqlite|postgres
//   DATABASE_PREPARED_STATEMENTS=false JOURNAL=postgres npx tsx bench/journalWrites.ts
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import type { ExecutionRecord, Journal } from '../src/ports/journal.ts'
import { openPostgresJournal } from '../src/store/postgres/openPostgresJournal.ts'
import { openJournal } from '../src/store/sqlite/openJournal.ts'
import { createTestDatabase } from '../test/support/postgresDatabase.ts'

const batch = Number(process.env.BATCH ?? 50)
const rounds = Number(process.env.ROUNDS ?? 20)
const dir = mkdtempSync(join(tmpdir(), 'journal-writes-'))
const database = process.env.JOURNAL === 'postgres' ? await createTestDatabase('bench_journal') : undefined
const journal: Journal = database
  ? await openPostgresJournal({
      url: database.url,
      preparedStatements: process.env.DATABASE_PREPARED_STATEMENTS !== 'false',
    })
  : openJournal({ path: join(dir, 'journal.sqlite') })
const chainId = 'eip155:31337'
const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, '0')}` as Hex
/** Intent `i`'s hash: anywhere in the key space, as a keccak256 is. */
const intentHash = (i: number) => `0x${createHash('sha256').update(String(i)).digest('hex')}` as Hex
const intentOf = (i: number) => ({
  sender: hex(0x11, 20),
  target: hex(0x22, 20),
  data: `0x${'cd'.repeat(100)}` as Hex,
  value: 0n,
  nonce: BigInt(i),
  validAfter: 0n,
  validBefore: 0n,
  policyId: hex(0x55, 32),
})
const cpu: Record<'claim' | 'recordSigned' | 'settle', number[]> = { claim: [], recordSigned: [], settle: [] }
const timed = async (name: keyof typeof cpu, run: () => Promise<unknown>) => {
  const before = process.cpuUsage()
  await run()
  const used = process.cpuUsage(before)
  cpu[name].push((used.user + used.system) / batch)
}

/** The machine's busy CPU time, µs (every core, from /proc/stat). */
const machineUs = () => {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)
  const [user, nice, system, , , irq, softirq] = ticks.map(Number)
  return ((user! + nice! + system! + irq! + softirq!) * 1_000_000) / 100
}
const ownUs = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
let next = 0
// A journal that has run a while: claims of other intents (left claimed; never measured).
for (const prefill = Number(process.env.PREFILL ?? 0); next < prefill; ) {
  const ids = Array.from({ length: Math.min(500, prefill - next) }, () => next++)
  await Promise.all(
    ids.map((i) => journal.claim({ chainId, intentHash: intentHash(i), intent: intentOf(i), chainInstance: 'bench' })),
  )
}
const prefilled = next
const [machineBefore, ownBefore] = [machineUs(), ownUs()]
try {
  for (let r = 0; r < rounds; r++) {
    const ids = Array.from({ length: batch }, () => next++)
    const records: ExecutionRecord[] = []
    await timed('claim', () =>
      Promise.all(
        ids.map(async (i, k) => {
          const claim = await journal.claim({
            chainId,
            intentHash: intentHash(i),
            intent: intentOf(i),
            chainInstance: 'bench',
          })
          if (!claim.ok) throw new Error(`intent ${i} was not claimed`)
          records[k] = claim.record
        }),
      ),
    )
    await timed('recordSigned', () =>
      Promise.all(
        records.map((record, k) =>
          journal.recordSigned(record, {
            id: hex(ids[k]!, 32),
            bytes: `0x${'ab'.repeat(400)}`,
            relayer: hex(0x33, 20),
            details: { txNonce: ids[k]! },
          }),
        ),
      ),
    )
    await timed('settle', () =>
      Promise.all(
        records.map((record) =>
          journal.settle(record, {
            state: 'mined',
            status: 1,
            blockNumber: 1n,
            blockHash: hex(0x44, 32),
            final: false,
            gasUsed: 50_000n,
            returnData: '0x',
            detail: undefined,
          }),
        ),
      ),
    )
  }
} finally {
  const elsewhere = machineUs() - machineBefore - (ownUs() - ownBefore)
  if (database)
    process.stdout.write(
      `the machine's CPU outside this process over the writes (the server's, on a quiet machine): ${(elsewhere / (next - prefilled)).toFixed(0)} µs per execute\n`,
    )
  await journal.close()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const line = Object.entries(cpu).map(([name, xs]) => `${name} ${median(xs).toFixed(0)} µs`)
const total = Object.values(cpu).reduce((sum, xs) => sum + median(xs), 0)
process.stdout.write(
  `${database ? 'PostgreSQL' : 'SQLite'} journal writes, CPU per execute (median of ${rounds} rounds of ${batch}): ${line.join(', ')}; the three ${total.toFixed(0)} µs\n`,
)
