// The execution journal's CPU per execute on SQLite, in-process: claim, recordSigned (fsynced as
// production does) and settle for 400 distinct intents a round, 200 in flight, as the execute
// route drives them; the process's user + system CPU over the round divided by 400, median of the
// rounds. JOURNAL_SRC points at another checkout's openJournal.ts to measure before and after.
// Usage: npx tsx bench/gatewaycpu/journalCpu.ts [rounds]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Hex } from 'viem'
import type { Journal } from '../../src/ports/journal.ts'

const source = resolve(process.env.JOURNAL_SRC ?? 'src/store/sqlite/openJournal.ts')
const { openJournal } = (await import(pathToFileURL(source).href)) as { openJournal: (p: { path: string }) => Journal }
const rounds = Number(process.argv[2] ?? 7)
const count = 400
const inFlight = 200
const dir = mkdtempSync(join(tmpdir(), 'journal-cpu-'))
const journal = openJournal({ path: join(dir, 'journal.db') })
const hex = (n: number, bytes: number): Hex => `0x${n.toString(16).padStart(bytes * 2, '0')}`
let serial = 0

async function execute(): Promise<void> {
  const n = ++serial
  const intent = {
    sender: hex(n % 50, 20),
    target: hex(7, 20),
    data: `0x${'ab'.repeat(100)}` as Hex,
    value: 0n,
    nonce: BigInt(n),
    validAfter: 0n,
    validBefore: 2n ** 40n,
    policyId: hex(1, 32),
  }
  const claim = await journal.claim({
    chainId: 'eip155:31337',
    intentHash: hex(n, 32),
    intent,
    chainInstance: 'bench',
    apiKeyId: 'k1',
  })
  if (!claim.ok) throw new Error('claim refused')
  const record = claim.record
  const tx = {
    id: hex(n + 1e9, 32),
    bytes: Buffer.alloc(400, n).toString('base64'),
    relayer: hex(9, 20),
    details: { txNonce: n },
  }
  await journal.recordSigned(record, tx)
  // The receipt arrives a little later, as the chain answers.
  await new Promise((r) => setTimeout(r, 5))
  const settled = await journal.settle(record, {
    state: 'mined',
    status: 0x01,
    blockNumber: BigInt(n),
    blockHash: hex(n, 32),
    gasUsed: 50000n,
    returnData: '0x',
    detail: undefined,
  })
  if (!settled) throw new Error('settle refused')
}

async function round(): Promise<number> {
  let next = 0
  const start = process.cpuUsage()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) await execute()
    }),
  )
  const used = process.cpuUsage(start)
  return (used.user + used.system) / count
}

const results: number[] = []
await round() // warm-up
for (let i = 0; i < rounds; i++) results.push(await round())
journal.close()
rmSync(dir, { recursive: true, force: true })
const sorted = [...results].sort((a, b) => a - b)
process.stdout.write(
  `journal CPU per execute (µs): median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)}; rounds ${results.map((r) => r.toFixed(0)).join(' / ')} (${source})\n`,
)
