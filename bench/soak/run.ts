// The soak (npm run soak): one gateway process, as a user runs it, under a steady mixed load below
// its capacity for a long time (30 minutes by default): every intent validated, then executed,
// some of them paid (x402 on the devnet's DemoDollar through the unmodified @x402/fetch client).
// Every 10 s it samples the gateway's RSS and open file descriptors (/proc), its heap and
// event-loop delay p99 (/metrics, prom-client's process metrics), the journal's size on disk and
// the keys under its Redis prefix. The verdict: a least-squares slope per series after a warm-up,
// each within its stated tolerance; no 5xx; every intent executed exactly once on chain and the
// relayer's nonces consistent (the fault campaign's own check, bench/chaos/verdict.ts).
//   SOAK_MINUTES (or --minutes=N)   how long, default 30
//   SOAK_RATE                       intents a second, default 2 (each: a validate and an execute)
//   SOAK_PAID_SHARE                 the share of executes that are paid, default 0.25
//   SOAK_RESULTS_DIR                where the run's JSON goes (default bench/results)
// Exit code 0 when the verdict holds.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { parseEther, toHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { payingClient } from '../../test/support/paymentsWorld.ts'
import { createDevClients, devnetAccounts, startDevnet } from '../gatewayParts.ts'
import { createCampaign, type Sent } from '../chaos/campaign.ts'
import { rpc } from '../chaos/rpc.ts'
import { seeded } from '../chaos/seeded.ts'
import { verdict } from '../chaos/verdict.ts'
import { slope } from './slope.ts'

const minutesArg = process.argv.find((a) => a.startsWith('--minutes='))?.slice('--minutes='.length)
const minutes = Number(minutesArg ?? process.env.SOAK_MINUTES ?? 30)
const rate = Number(process.env.SOAK_RATE ?? 2)
const paidShare = Number(process.env.SOAK_PAID_SHARE ?? 0.25)
const sampleMs = 10_000
/** The first part of the run is left out of the slopes: start-up, JIT and caches filling. */
const warmUpShare = 0.2
const redisUrl = process.env.SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379'
const log = (line: string) => process.stdout.write(`${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * What "flat" means, per 10 minutes of the slope after the warm-up. The journal keeps every
 * execution (RETENTION_DAYS), so it grows with the intents: its tolerance is per intent.
 */
const tolerances = {
  rssMb: 4,
  heapMb: 3,
  fds: 2,
  eventLoopP99Ms: 2,
  redisKeys: 20,
  journalBytesPerIntent: 8_192,
}

type Sample = { at: number; rssMb: number; heapMb: number; fds: number; eventLoopP99Ms: number; journalBytes: number; redisKeys: number; intents: number }

const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 1e9))
const started = performance.now()
log(`soak: ${minutes} min at ${rate} intents/s (each validated, then executed; ${Math.round(paidShare * 100)}% paid), seed ${seed}, load average ${loadavg()[0]!.toFixed(2)}, ${cpus().length} cores`)
const devnet = await startDevnet({ blockTime: 1 })
const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
const fromBlock = await publicClient.getBlockNumber()
const campaign = createCampaign({
  quick: false,
  seed,
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl,
  devnet,
  random: seeded(seed),
  log,
})
const prefix = `soak:${seed}:`
const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
const key = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 36 })
await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [key.address, toHex(parseEther('1000'))])
campaign.relayers.push(key.address)
const { payment } = devnet.demo
const price = 10_000n
const journalDir = mkdtempSync(join(tmpdir(), 'soak-journal-'))
const apiKey = `soak-${seed}-0123456789abcdef`
const node = await campaign.startNode('soak', {
  JOURNAL_PATH: join(journalDir, 'journal.sqlite'),
  // Unpaid executes come with an API key (API-key clients are not priced), paid ones without.
  API_KEYS: apiKey,
  RELAYER_PRIVATE_KEY: toHex(key.getHdKey().privateKey!),
  REDIS_URL: redisUrl,
  REDIS_PREFIX: prefix,
  GAS_BUDGET_PER_CLIENT: '1000000000000000000000',
  X402_PRICES: JSON.stringify({
    [`eip155:${devnet.anvil.chainId}`]: {
      execute: { asset: payment.asset, amount: price.toString(), payTo: payment.payTo, extra: { name: payment.name, version: payment.version }, maxTimeoutSeconds: 60 },
    },
  }),
  FACILITATOR_PRIVATE_KEY: devnetAccounts.facilitator,
})
const gateway = node.instance
const paying = payingClient(devnet)
const payer = privateKeyToAccount(devnetAccounts.payer).address
const statuses = new Map<number, number>()
const fivexx: string[] = []
const count = (status: number, what: string) => {
  statuses.set(status, (statuses.get(status) ?? 0) + 1)
  if (status >= 500) fivexx.push(`${what}: ${status}`)
}
const headers = { 'content-type': 'application/json', 'x-chain-id': String(devnet.anvil.chainId) }
const keyed = { ...headers, authorization: `Bearer ${apiKey}` }

/** One intent: validated, then executed (paid or not) until it is answered 200. */
async function drive(s: Sent, paid: boolean): Promise<void> {
  const validated = await fetch(`${gateway.url}/intents/validate`, { method: 'POST', headers: keyed, body: s.body }).catch(() => undefined)
  count(validated?.status ?? 0, 'validate')
  await validated?.arrayBuffer()
  for (let attempt = 0; attempt < 20; attempt++) {
    const res = await (paid ? paying.fetch : fetch)(`${gateway.url}/intents/execute`, { method: 'POST', headers: paid ? headers : keyed, body: s.body, signal: AbortSignal.timeout(60_000) }).catch(
      () => undefined,
    )
    count(res?.status ?? 0, paid ? 'paid execute' : 'execute')
    s.answer = `${res?.status}`
    await res?.arrayBuffer()
    if (res?.status === 200) return
    await sleep(1_000)
  }
  s.unanswered = true
}

async function sample(intents: number): Promise<Sample> {
  const pid = gateway.pid()!
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024
  const fds = readdirSync(`/proc/${pid}/fd`).length
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text()
  const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN)
  const journalBytes = readdirSync(journalDir)
    .filter((f) => f.startsWith('journal.sqlite'))
    .reduce((sum, f) => sum + statSync(join(journalDir, f)).size, 0)
  let redisKeys = 0
  let cursor = '0'
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
    redisKeys += keys.length
    cursor = next
  } while (cursor !== '0')
  return {
    at: (performance.now() - started) / 1000,
    rssMb,
    heapMb: metric('nodejs_heap_size_used_bytes') / 1024 / 1024,
    fds,
    eventLoopP99Ms: metric('nodejs_eventloop_lag_p99_seconds') * 1000,
    journalBytes,
    redisKeys,
    intents,
  }
}

const samples: Sample[] = []
const inFlight = new Set<Promise<void>>()
const endAt = Date.now() + minutes * 60_000
let sent = 0
let paidSent = 0
let nextSample = Date.now()
const random = seeded(seed + 1)
const payerBefore = await publicClient.readContract({
  address: payment.asset,
  abi: [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ type: 'address' }], outputs: [{ type: 'uint256' }] }],
  functionName: 'balanceOf',
  args: [payer],
})
try {
  while (Date.now() < endAt) {
    const tickStarted = Date.now()
    if (tickStarted >= nextSample) {
      const s = await sample(sent)
      samples.push(s)
      log(
        `  ${s.at.toFixed(0).padStart(5)} s  rss ${s.rssMb.toFixed(1)} MB  heap ${s.heapMb.toFixed(1)} MB  fds ${s.fds}  loop p99 ${s.eventLoopP99Ms.toFixed(1)} ms  journal ${(s.journalBytes / 1024).toFixed(0)} KiB  redis keys ${s.redisKeys}  intents ${s.intents}  in flight ${inFlight.size}`,
      )
      nextSample += sampleMs
    }
    const [s] = await campaign.makeIntents(1, 'soak')
    const paid = random() < paidShare
    if (paid) paidSent++
    const p = drive(s!, paid).finally(() => inFlight.delete(p))
    inFlight.add(p)
    sent++
    await sleep(Math.max(0, 1000 / rate - (Date.now() - tickStarted)))
  }
  await Promise.all(inFlight)
  samples.push(await sample(sent))
} finally {
  await gateway.stop()
}

// The chain's word: every intent once, the nonces consistent (the campaign's verdict), and the payer charged per paid intent.
const chainHolds = await verdict(campaign, { fromBlock, started })
const payerAfter = await publicClient.readContract({
  address: payment.asset,
  abi: [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ type: 'address' }], outputs: [{ type: 'uint256' }] }],
  functionName: 'balanceOf',
  args: [payer],
})
const charged = (payerBefore as bigint) - (payerAfter as bigint)
const paidOk = charged === price * BigInt(paidSent)

const kept = samples.filter((s) => s.at >= samples.at(-1)!.at * warmUpShare)
const per10Min = (pick: (s: Sample) => number) => slope(kept.map((s) => [s.at, pick(s)])) * 600
const journalPerIntent = slope(kept.map((s) => [s.intents, s.journalBytes]))
const trends = [
  { series: 'RSS (MB per 10 min)', value: per10Min((s) => s.rssMb), tolerance: tolerances.rssMb },
  { series: 'heap used (MB per 10 min)', value: per10Min((s) => s.heapMb), tolerance: tolerances.heapMb },
  { series: 'open file descriptors (per 10 min)', value: per10Min((s) => s.fds), tolerance: tolerances.fds },
  { series: 'event-loop delay p99 (ms per 10 min)', value: per10Min((s) => s.eventLoopP99Ms), tolerance: tolerances.eventLoopP99Ms },
  { series: 'Redis keys (per 10 min)', value: per10Min((s) => s.redisKeys), tolerance: tolerances.redisKeys },
  { series: 'journal (bytes per intent)', value: journalPerIntent, tolerance: tolerances.journalBytesPerIntent },
]
const wallSeconds = (performance.now() - started) / 1000
log(`\nsoak verdict (${kept.length} samples after the ${Math.round(warmUpShare * 100)}% warm-up, slopes by least squares):`)
for (const t of trends) log(`  ${Math.abs(t.value) <= t.tolerance ? 'FLAT' : 'TREND'}  ${t.series.padEnd(40)} ${t.value.toFixed(2).padStart(10)}  (tolerance ±${t.tolerance})`)
log(`  ${fivexx.length === 0 ? 'OK  ' : 'FAIL'}  5xx answers: ${fivexx.length}${fivexx.length ? ` (${fivexx.slice(0, 5).join(', ')})` : ''}; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
log(`  ${paidOk ? 'OK  ' : 'FAIL'}  payer charged ${charged} for ${paidSent} paid intents (${price} each)`)
const holds = chainHolds && paidOk && fivexx.length === 0 && trends.every((t) => Math.abs(t.value) <= t.tolerance)
log(
  `${holds ? 'SOAK HOLDS' : 'SOAK FAILS'}: ${sent} intents over ${minutes} min (${wallSeconds.toFixed(0)} s), seed ${seed}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
const dir = process.env.SOAK_RESULTS_DIR ?? join(new URL('../results/', import.meta.url).pathname)
const file = join(dir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(
  file,
  `${JSON.stringify({ minutes, rate, paidShare, seed, sent, paidSent, charged: charged.toString(), statuses: Object.fromEntries(statuses), fivexx, trends, tolerances, samples, holds, wallSeconds }, null, 2)}\n`,
)
log(`wrote ${file}`)
const left = await redis.keys(`${prefix}*`)
if (left.length > 0) await redis.del(...left)
redis.disconnect()
rmSync(journalDir, { recursive: true, force: true })
for (const c of campaign.cleanups.reverse()) await c().catch(() => {})
await devnet.stop()
process.exit(holds ? 0 : 1)
