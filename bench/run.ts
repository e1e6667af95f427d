// npm run bench: how close the gateway comes to the chain node's own limit. In one run, in
// alternating rounds, it measures the gateway against the same work sent straight to anvil, and
// prints ratios (these machines are noisy: only same-run ratios mean anything).
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { type Hex, encodeFunctionData, parseEther, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { demoCounterArtifact } from '../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../src/contracts/intentExecutorArtifact.ts'
import { intentValidatorArtifact } from '../src/contracts/intentValidatorArtifact.ts'
import { toIntentTuple } from '../src/chains/evm/evmRuntime.ts'
import { intentTypedData } from '../src/chains/evm/intentTypedData.ts'
import { devnetAccounts } from '../src/devnet/devnetAccounts.ts'
import { createDevClients } from '../src/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../src/devnet/startDevnet.ts'
import type { Intent } from '../src/intents/intent.ts'

const quick = process.argv.includes('--quick')
const roundSeconds = quick ? 2 : 5
const rounds = quick ? 1 : 2
const executeCount = quick ? 100 : 400

/** Execute needs an API key in production; validate stays open, as by default. */
/** What the bench has started and not stopped yet: stopped on the way out, whatever happened. */
const running = new Set<{ stop(): Promise<void> }>()
/** Starts a part and keeps it for cleanup. */
async function started<T extends { stop(): Promise<void> }>(part: Promise<T>): Promise<T> {
  const value = await part
  running.add(value)
  return value
}
async function stopped(part: { stop(): Promise<void> }): Promise<void> {
  running.delete(part)
  await part.stop()
}
const benchApiKey = `bench-${generatePrivateKey().slice(2, 34)}`

type Load = { rps: number; p50: number; p99: number; errors: number; non2xx: number }

async function load(opts: { url: string; body: string; connections: number; headers?: Record<string, string> }): Promise<Load> {
  const result = await autocannon({
    url: opts.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: opts.body,
    connections: opts.connections,
    duration: roundSeconds,
  })
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx }
}

/** Alternating rounds of a and b; the median of each. */
async function compare(a: () => Promise<Load>, b: () => Promise<Load>): Promise<[Load, Load]> {
  const as: Load[] = []
  const bs: Load[] = []
  for (let i = 0; i < rounds; i++) {
    as.push(await a())
    bs.push(await b())
  }
  return [median(as), median(bs)]
}

function median(loads: Load[]): Load {
  const sorted = [...loads].sort((x, y) => x.rps - y.rps)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

async function startGateway(devnet: Devnet, relayerKey: Hex) {
  const port = 20000 + Math.floor(Math.random() * 20000)
  const journalDir = mkdtempSync(join(tmpdir(), 'bench-journal-'))
  // As production runs it: the compiled JavaScript (npm run build), no TypeScript loader.
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      PORT: String(port),
      HOST: '127.0.0.1',
      EXECUTOR_ADDRESSES: JSON.stringify({ [devnet.chain.reference]: devnet.contracts.executor }),
      VALIDATOR_ADDRESSES: JSON.stringify({ [devnet.chain.reference]: devnet.contracts.validator }),
      REGISTRY_ADDRESSES: JSON.stringify({ [devnet.chain.reference]: devnet.contracts.registry }),
      RPC_URLS: JSON.stringify({ [devnet.chain.reference]: devnet.anvil.rpcUrl }),
      RELAYER_PRIVATE_KEY: relayerKey,
      RECEIPT_TIMEOUT_MS: '60000',
      API_KEYS: benchApiKey,
      // A fresh journal per run (the chain is fresh too), on disk and fsynced as in production.
      JOURNAL_PATH: join(journalDir, 'journal.sqlite'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  let logLines = 0
  child.stdout!.on('data', (c: Buffer) => (logLines += c.toString().split('\n').length - 1))
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const url = `http://127.0.0.1:${port}`
  const gateway = { stop: async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    rmSync(journalDir, { recursive: true, force: true })
  } }
  running.add(gateway)
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited at start-up: ${stderr.slice(-2000)}`)
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch {}
    if (i > 400) throw new Error(`the gateway did not answer /health within 20 s: ${stderr.slice(-2000)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  running.delete(gateway)
  const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024
  return {
    url,
    peakRssMb,
    logLines: () => logLines,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        await new Promise((r) => child.once('exit', r))
      }
      rmSync(journalDir, { recursive: true, force: true })
    },
  }
}

function intentBody(devnet: Devnet, nonce: number, dataBytes = 0) {
  const call = encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] })
  const data = (call + toHex(new Uint8Array(dataBytes)).slice(2)) as Hex
  const intent: Intent = { sender: devnet.demo.sender, target: devnet.demo.counter, data, value: 0n, nonce: BigInt(nonce), validAfter: 0n, validBefore: 0n, policyId: devnet.demo.policies.open }
  const body = JSON.stringify({ ...intent, value: '0', nonce: String(nonce), validAfter: '0', validBefore: '0' })
  return { intent, body }
}

/** The intent and its body signed by the demo sender, as an agent sends it to execute. */
async function signedIntentBody(devnet: Devnet, nonce: number) {
  const { intent } = intentBody(devnet, nonce)
  const signature = await privateKeyToAccount(devnetAccounts.sender).signTypedData(intentTypedData({ chainId: devnet.anvil.chainId, executor: devnet.contracts.executor, intent }))
  const body = JSON.stringify({ ...intent, value: '0', nonce: String(nonce), validAfter: '0', validBefore: '0', signature })
  return { intent, signature, body }
}

function ethCallBody(devnet: Devnet, intent: Intent) {
  const data = encodeFunctionData({ abi: intentValidatorArtifact.abi, functionName: 'canExecute', args: [toIntentTuple(intent)] })
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: devnet.contracts.validator, data }, 'latest'] })
}

async function fundedKey(devnet: Devnet): Promise<Hex> {
  const key = generatePrivateKey()
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  await publicClient.request({ method: 'anvil_setBalance' as never, params: [privateKeyToAccount(key).address, toHex(parseEther('1000'))] as never })
  return key
}

async function benchValidate(report: Record<string, unknown>) {
  const devnet = await started(startDevnet())
  const gateway = await started(startGateway(devnet, await fundedKey(devnet)))
  try {
    const { intent, body } = intentBody(devnet, 0)
    const check = await fetch(`${gateway.url}/intents/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    if (check.status !== 200) throw new Error(`validate answered ${check.status}: ${await check.text()}`)
    const raw = ethCallBody(devnet, intent)
    // Warm both paths up (JIT, connection pools) before anything is measured.
    await load({ url: `${gateway.url}/intents/validate`, body, connections: 10 })
    await load({ url: devnet.anvil.rpcUrl, body: raw, connections: 10 })

    const validate: Record<string, unknown> = {}
    for (const connections of [10, 50]) {
      const [direct, viaGateway] = await compare(
        () => load({ url: devnet.anvil.rpcUrl, body: raw, connections }),
        () => load({ url: `${gateway.url}/intents/validate`, body, connections }),
      )
      validate[connections] = { raw: direct, gateway: viaGateway, ratio: viaGateway.rps / direct.rps, addedP50Ms: viaGateway.p50 - direct.p50, addedP99Ms: viaGateway.p99 - direct.p99 }
      print(`validate @${connections} connections`, direct, viaGateway)
    }
    report.validate = validate

    const growth: Record<string, Load> = {}
    for (const connections of [1, 10, 50, 200]) growth[`connections=${connections}`] = await load({ url: `${gateway.url}/intents/validate`, body, connections })
    for (const bytes of [0, 1024, 16 * 1024]) growth[`data=${bytes}B`] = await load({ url: `${gateway.url}/intents/validate`, body: intentBody(devnet, 0, bytes).body, connections: 10 })
    report.growth = growth
    process.stdout.write(`\ngrowth (gateway validate latency)\n${Object.entries(growth).map(([k, v]) => `  ${k.padEnd(18)} ${fmt(v)}`).join('\n')}\n`)
    report.validatePeakRssMb = gateway.peakRssMb()
    report.gatewayLogLines = gateway.logLines()
  } finally {
    await stopped(gateway)
    await stopped(devnet)
  }
}

async function benchExecute(report: Record<string, unknown>) {
  // Interval mining: concurrent submissions stall anvil's automine (toolchain notes).
  const devnet = await started(startDevnet({ blockTime: 1 }))
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  const gateway = await started(startGateway(devnet, await fundedKey(devnet)))
  try {
    const countBefore = await publicClient.readContract({ address: devnet.contracts.counter, abi: demoCounterArtifact.abi, functionName: 'count' })

    // Raw: the same executeSigned() calls (intents signed by their sender), pre-signed by a funded
    // relaying key, sent straight to the node.
    const rawKey = await fundedKey(devnet)
    const rawAccount = privateKeyToAccount(rawKey)
    const startNonce = await publicClient.getTransactionCount({ address: rawAccount.address, blockTag: 'pending' })
    const fees = await publicClient.estimateFeesPerGas()
    const signed = await Promise.all(
      Array.from({ length: executeCount }, async (_, i) => {
        const { intent, signature } = await signedIntentBody(devnet, 1_000_000 + i)
        return rawAccount.signTransaction({
          chainId: devnet.anvil.chainId, type: 'eip1559', to: devnet.contracts.executor, nonce: startNonce + i, gas: 300_000n, ...fees,
          data: encodeFunctionData({ abi: intentExecutorArtifact.abi, functionName: 'executeSigned', args: [toIntentTuple(intent), signature] }),
        })
      }),
    )
    let t = performance.now()
    // In nonce order, as one sender must; the receipts are awaited together.
    const hashes: Hex[] = []
    for (const tx of signed) hashes.push(await publicClient.sendRawTransaction({ serializedTransaction: tx }))
    const rawReceipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash, timeout: 120_000 })))
    const rawSeconds = (performance.now() - t) / 1000
    const rawOk = rawReceipts.filter((r) => r.status === 'success').length

    // Gateway: distinct intents, all at once (bounded to 200 in flight, like a busy agent fleet).
    const bodies = await Promise.all(Array.from({ length: executeCount }, async (_, i) => (await signedIntentBody(devnet, 2_000_000 + i)).body))
    const statuses: Record<string, number> = {}
    t = performance.now()
    let next = 0
    await Promise.all(
      Array.from({ length: Math.min(200, executeCount) }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!
          const res = await fetch(`${gateway.url}/intents/execute`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${benchApiKey}` }, body })
          statuses[res.status] = (statuses[res.status] ?? 0) + 1
          await res.arrayBuffer()
        }
      }),
    )
    const gatewaySeconds = (performance.now() - t) / 1000

    // On-chain: every intent executed exactly once.
    const countAfter = await publicClient.readContract({ address: devnet.contracts.counter, abi: demoCounterArtifact.abi, functionName: 'count' })
    const used = await Promise.all(
      Array.from({ length: executeCount }, (_, i) =>
        publicClient.readContract({ address: devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'nonceUsed', args: [devnet.demo.sender, BigInt(2_000_000 + i)] }),
      ),
    )
    const result = {
      count: executeCount,
      raw: { seconds: rawSeconds, perSecond: executeCount / rawSeconds, succeeded: rawOk },
      gateway: { seconds: gatewaySeconds, perSecond: executeCount / gatewaySeconds, statuses },
      ratio: rawSeconds / gatewaySeconds,
      nonceErrors: executeCount - (statuses['200'] ?? 0),
      executedOnChain: used.filter(Boolean).length,
      counterDelta: Number(countAfter - countBefore),
      peakRssMb: gateway.peakRssMb(),
    }
    report.execute = result
    process.stdout.write(
      `\nexecute ${executeCount} intents (anvil --block-time 1)\n` +
        `  raw       ${result.raw.perSecond.toFixed(0).padStart(7)} tx/s   (${rawOk}/${executeCount} succeeded)\n` +
        `  gateway   ${result.gateway.perSecond.toFixed(0).padStart(7)} exec/s (statuses ${JSON.stringify(statuses)})\n` +
        `  ratio     ${result.ratio.toFixed(2)}x   non-200: ${result.nonceErrors}   executed on-chain: ${result.executedOnChain}/${executeCount}   counter +${result.counterDelta} (raw + gateway = ${rawOk + executeCount})\n`,
    )
  } finally {
    await stopped(gateway)
    await stopped(devnet)
  }
}

const fmt = (l: Load) => `${l.rps.toFixed(0).padStart(7)} req/s  p50 ${l.p50.toFixed(1).padStart(5)} ms  p99 ${l.p99.toFixed(1).padStart(5)} ms  errors ${l.errors}  non-2xx ${l.non2xx}`

function print(title: string, raw: Load, gateway: Load) {
  process.stdout.write(`\n${title}\n  raw eth_call  ${fmt(raw)}\n  gateway       ${fmt(gateway)}\n  ratio         ${(gateway.rps / raw.rps).toFixed(2)}x   added p99 ${(gateway.p99 - raw.p99).toFixed(1)} ms\n`)
}

function targets(report: any) {
  const v50 = report.validate['50']
  const v10 = report.validate['10']
  const rows: Array<[string, string, boolean]> = [
    ['validate throughput >= 0.9x raw eth_call @50', `${v50.ratio.toFixed(2)}x`, v50.ratio >= 0.9],
    ['stretch: validate >= 1.0x raw @50', `${v50.ratio.toFixed(2)}x`, v50.ratio >= 1.0],
    ['p99 added by the gateway <= 2 ms @10', `${v10.addedP99Ms.toFixed(1)} ms`, v10.addedP99Ms <= 2],
    ['execute >= 0.8x raw tx rate', `${report.execute.ratio.toFixed(2)}x`, report.execute.ratio >= 0.8],
    ['zero nonce errors', String(report.execute.nonceErrors), report.execute.nonceErrors === 0],
    ['each intent executed exactly once', `${report.execute.executedOnChain}/${report.execute.count}`, report.execute.executedOnChain === report.execute.count && report.execute.counterDelta === report.execute.count + report.execute.raw.succeeded],
    ['peak RSS <= 200 MB', `${Math.max(report.validatePeakRssMb, report.execute.peakRssMb).toFixed(0)} MB`, Math.max(report.validatePeakRssMb, report.execute.peakRssMb) <= 200],
  ]
  process.stdout.write(`\ntargets\n${rows.map(([what, got, ok]) => `  ${ok ? 'MET    ' : 'NOT MET'}  ${what.padEnd(46)} ${got}`).join('\n')}\n`)
  return rows.map(([what, got, met]) => ({ what, got, met }))
}

const report: Record<string, unknown> = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
  settings: { roundSeconds, rounds, executeCount },
}
const startedAt = performance.now()
/** Stops whatever is still running (anvil nodes, gateways, their journals), in reverse order. */
async function cleanUp() {
  for (const part of [...running].reverse()) await stopped(part).catch(() => {})
}
process.once('SIGINT', () => {
  process.stdout.write('\ninterrupted: stopping the nodes and gateways the bench started\n')
  void cleanUp().finally(() => process.exit(130))
})
let phase = 'build'
try {
  process.stdout.write('building the gateway (npm run build)...\n')
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' })
  phase = 'validate'
  await benchValidate(report)
  phase = 'execute'
  await benchExecute(report)
} catch (err) {
  process.stderr.write(`\nthe bench failed in its ${phase} phase, no result written: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  await cleanUp()
  process.exit(1)
}
await cleanUp()
report.targets = targets(report)
report.totalSeconds = (performance.now() - startedAt) / 1000
const file = `bench/results/${(report.date as string).replace(/[:.]/g, '-')}.json`
writeFileSync(file, JSON.stringify(report, null, 2))
process.stdout.write(`\nwrote ${file} (${(report.totalSeconds as number).toFixed(0)} s)\n`)
