// The soak (npm run soak): one real gateway process (node + tsx, as bench/chaos starts them) on the
// embedded devnet, SQLite journal, rate limits in Redis under a prefix of its own, x402 prices on
// execute, fed a fixed mixed load below capacity (validate, API-key execute, paid execute through
// @x402/fetch) for SOAK_MINUTES (default 30). Every 10 s it samples the gateway's RSS, heap used,
// open file descriptors, event-loop delay p99, journal size and Redis keys. Verdict: after the
// warm-up, each series' least-squares slope is under its tolerance (soakTolerances.ts), no answer
// was 5xx, every execute ran exactly once on chain, the payer paid exactly the price per paid
// intent that ran. Results go to bench/results/soak-<time>.json; exit code 0 when the verdict holds.
//   --minutes=N | SOAK_MINUTES          length of the load (default 30)
//   SOAK_VALIDATE_RATE, SOAK_EXECUTE_RATE, SOAK_PAID_RATE   requests per second (default 4, 1, 0.25)
//   SOAK_WARMUP_MINUTES                 samples before this are left out of the fit (default: 5, or a fifth of a shorter run)
//   SOAK_REDIS_URL                      default redis://127.0.0.1:6379 (keys under soak-<pid>:, deleted after)
//   SOAK_RESULTS_DIR                    default bench/results
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { parseEther, toHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { payingClient } from '../../test/support/paymentsWorld.ts'
import { createCampaign } from '../chaos/campaign.ts'
import { rpc } from '../chaos/rpc.ts'
import { seeded } from '../chaos/seeded.ts'
import { createDevClients, devnetAccounts, intentExecutorArtifact, startDevnet } from '../gatewayParts.ts'
import { leastSquaresSlope } from './leastSquaresSlope.ts'
import { type Sample, sampleGateway } from './sampleGateway.ts'
import { soakTolerances } from './soakTolerances.ts'
import { type SoakRates, startSoakLoad } from './startSoakLoad.ts'

const arg = process.argv.find((a) => a.startsWith('--minutes='))?.slice('--minutes='.length)
const minutes = Number(arg ?? process.env.SOAK_MINUTES ?? 30)
const rates: SoakRates = {
  validate: Number(process.env.SOAK_VALIDATE_RATE ?? 4),
  execute: Number(process.env.SOAK_EXECUTE_RATE ?? 1),
  paid: Number(process.env.SOAK_PAID_RATE ?? 0.25),
}
const warmupMinutes = Number(process.env.SOAK_WARMUP_MINUTES ?? Math.min(5, minutes / 5))
const problems = [
  ...(!(minutes > 0) ? [`--minutes / SOAK_MINUTES: a positive number, not ${arg ?? process.env.SOAK_MINUTES}`] : []),
  ...Object.entries(rates)
    .filter(([, r]) => !(r >= 0))
    .map(([k, r]) => `SOAK_${k.toUpperCase()}_RATE: a number ≥ 0, not ${r}`),
  ...(!(warmupMinutes >= 0 && warmupMinutes < minutes)
    ? [`SOAK_WARMUP_MINUTES: ≥ 0 and below the run's minutes, not ${warmupMinutes}`]
    : []),
]
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`)
  process.exit(2)
}
const sampleEveryMs = 10_000
const price = 10_000n
const apiKey = `soak-key-${process.pid}-0123456789abcdef`
const redisPrefix = `soak-${process.pid}:`
const log = (line: string) => process.stdout.write(`${line}\n`)
const cleanups: Array<() => Promise<unknown>> = []

async function main(): Promise<boolean> {
  const startedAt = new Date()
  const loadStart = loadavg()
  log(
    `soak: ${minutes} min, rates/s validate ${rates.validate}, execute ${rates.execute}, paid ${rates.paid}; warm-up ${warmupMinutes} min; load average ${loadStart.map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores`,
  )
  const devnet = await startDevnet({ blockTime: 1 })
  cleanups.push(() => devnet.stop())
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  const fromBlock = await publicClient.getBlockNumber()
  const campaign = createCampaign({
    quick: false,
    seed: 0,
    databaseUrl: '',
    redisUrl: process.env.SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379',
    devnet,
    random: seeded(1),
    log,
  })
  cleanups.push(async () => {
    for (const c of campaign.cleanups.reverse()) await c()
  })
  const redis = new Redis(campaign.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 })
  await redis.connect()
  cleanups.push(async () => {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000)
      cursor = next
      if (keys.length > 0) await redis.del(...keys)
    } while (cursor !== '0')
    redis.disconnect()
  })
  const dir = mkdtempSync(join(tmpdir(), 'soak-'))
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  const journalPath = join(dir, 'journal.sqlite')
  const relayer = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 36 })
  await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [relayer.address, toHex(parseEther('1000'))])
  const { payment } = devnet.demo
  const node = await campaign.startNode('soak', {
    JOURNAL_PATH: journalPath,
    RELAYER_PRIVATE_KEY: toHex(relayer.getHdKey().privateKey!),
    REDIS_URL: campaign.redisUrl,
    REDIS_PREFIX: redisPrefix,
    API_KEYS: apiKey,
    RATE_LIMIT_MAX: '1000000',
    X402_PRICES: JSON.stringify({
      [`eip155:${devnet.anvil.chainId}`]: {
        execute: {
          asset: payment.asset,
          amount: price.toString(),
          payTo: payment.payTo,
          extra: { name: payment.name, version: payment.version },
          maxTimeoutSeconds: 60,
        },
      },
    }),
    FACILITATOR_PRIVATE_KEY: devnetAccounts.facilitator,
  })
  const pid = node.instance.pid()!
  log(
    `gateway ${node.instance.url} (pid ${pid}), journal ${journalPath}, Redis prefix ${redisPrefix}, relayer ${relayer.address}`,
  )
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const balanceOf = () =>
    publicClient.readContract({
      address: payment.asset,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [payer],
    })
  const before = await balanceOf()
  const validatePool = await campaign.makeIntents(50, 'validate')
  campaign.intents.length = 0 // validated, never executed: not asked about on chain

  const paying = payingClient(devnet)
  const source = { pid, url: node.instance.url, journalPath, redis: { client: redis, prefix: redisPrefix } }
  const samples: Sample[] = []
  const t0 = performance.now()
  const load = startSoakLoad({
    campaign,
    url: () => node.instance.url,
    rates,
    apiKey,
    payingFetch: paying.fetch,
    validatePool,
  })
  const loadAverages: number[] = []
  const endAt = t0 + minutes * 60_000
  while (performance.now() < endAt) {
    await new Promise((r) => setTimeout(r, Math.min(sampleEveryMs, endAt - performance.now())))
    if (node.instance.pid() !== pid) throw new Error(`the gateway exited: ${node.instance.tail()}`)
    const s = await sampleGateway(source, (performance.now() - t0) / 1000)
    samples.push(s)
    loadAverages.push(loadavg()[0]!)
    log(
      `  ${s.t.toFixed(0).padStart(5)} s  RSS ${s.rssMB.toFixed(1)} MB  heap ${s.heapUsedMB.toFixed(1)} MB  fds ${s.openFds}  loop p99 ${s.eventLoopP99Ms.toFixed(1)} ms  journal ${s.journalMB.toFixed(2)} MB  redis keys ${s.redisKeys}  load ${loadAverages.at(-1)!.toFixed(1)}  started ${load.stats.validate.started}/${load.stats.execute.started}/${load.stats.paid.started}`,
    )
  }
  log('load stopped; waiting for the requests in flight')
  await load.stop()

  // The chain: how often each execute ran, and what the payer paid.
  await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x2'])
  const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
  const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
  const times = new Map<string, number>()
  for (const l of logs) times.set(l.args.intentHash!, (times.get(l.args.intentHash!) ?? 0) + 1)
  const all = [...load.executes, ...load.paid]
  const wrong = all.filter((s) => times.get(s.hash) !== 1)
  const paidRan = load.paid.filter((s) => times.get(s.hash) === 1).length
  const charged = before - (await balanceOf())
  const fiveXX = Object.values(load.stats).reduce(
    (sum, k) => sum + Object.entries(k.statuses).reduce((n, [st, c]) => n + (st.startsWith('5') ? c : 0), 0),
    0,
  )
  const unanswered = all.filter((s) => s.unanswered).length

  // The trends.
  const fitted = samples.filter((s) => s.t >= warmupMinutes * 60)
  const executesPer10Min = (rates.execute + rates.paid) * 600
  const slopes = soakTolerances.map((tol) => {
    const perSecond = leastSquaresSlope(fitted.map((s) => ({ x: s.t, y: s[tol.series] })))
    const per10Min = perSecond * 600
    const max = tol.max(executesPer10Min)
    return {
      series: tol.series,
      per10Min,
      unit: tol.unit,
      max,
      rule: tol.rule,
      ok: per10Min < max,
      first: fitted[0]?.[tol.series],
      last: fitted.at(-1)?.[tol.series],
    }
  })
  log(`\nslopes after a ${warmupMinutes} min warm-up (${fitted.length} samples, every ${sampleEveryMs / 1000} s):`)
  for (const s of slopes)
    log(
      `  ${s.ok ? 'ok    ' : 'FAILED'} ${s.series.padEnd(15)} ${s.per10Min.toFixed(3).padStart(9)} ${s.unit} / 10 min (tolerance < ${s.max.toFixed(2)}; ${s.first?.toFixed(2)} → ${s.last?.toFixed(2)})`,
    )
  log(
    `answers: ${Object.entries(load.stats)
      .map(([k, v]) => `${k} ${v.started} started, ${JSON.stringify(v.statuses)}, at most ${v.maxInFlight} in flight`)
      .join('; ')}`,
  )
  log(
    `${all.length - wrong.length} of ${all.length} executes ran exactly once on chain (${load.executes.length} with an API key, ${load.paid.length} paid); ${fiveXX} answers 5xx; ${unanswered} never answered`,
  )
  log(
    `payer charged ${charged} for ${paidRan} paid intents that ran (${price} each: ${charged === price * BigInt(paidRan) ? 'exact' : 'NOT exact'})`,
  )
  for (const w of wrong.slice(0, 20))
    log(
      `  NOT exactly once: ${w.hash} (${w.label}) ran ${times.get(w.hash) ?? 0} times; last answer ${w.answer ?? 'none'}`,
    )
  const enoughSamples = fitted.length >= 6
  if (!enoughSamples) log(`only ${fitted.length} samples after the warm-up: too few to fit a trend (need 6)`)
  const ok =
    enoughSamples &&
    slopes.every((s) => s.ok) &&
    fiveXX === 0 &&
    wrong.length === 0 &&
    unanswered === 0 &&
    charged === price * BigInt(paidRan) &&
    all.length > 0
  log(`verdict: ${ok ? 'PASS' : 'FAIL'}`)
  const loadEnd = loadavg()
  const file = join(
    process.env.SOAK_RESULTS_DIR ?? 'bench/results',
    `soak-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`,
  )
  writeFileSync(
    file,
    JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version },
        loadAverage: {
          atStart: loadStart,
          atEnd: loadEnd,
          meanOneMinute: loadAverages.reduce((a, b) => a + b, 0) / Math.max(1, loadAverages.length),
        },
        minutes,
        warmupMinutes,
        rates,
        tolerances: soakTolerances.map((t) => t.rule),
        slopes,
        stats: load.stats,
        executes: all.length,
        exactlyOnce: all.length - wrong.length,
        fiveXX,
        unanswered,
        payer: { paidIntentsRan: paidRan, charged: charged.toString(), price: price.toString() },
        samples,
        ok,
      },
      null,
      2,
    ),
  )
  log(`wrote ${file}; the gateway's log is in ${campaign.logDir}`)
  return ok
}

async function cleanUp() {
  for (const c of cleanups.reverse())
    await c().catch((err: unknown) => process.stderr.write(`cleanup: ${(err as Error).message}\n`))
}
process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)))
process.once('SIGTERM', () => void cleanUp().finally(() => process.exit(143)))
let ok = false
try {
  ok = await main()
} catch (err) {
  process.stderr.write(`\nthe soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
}
await cleanUp()
process.exit(ok ? 0 : 1)
