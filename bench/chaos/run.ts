// The fault campaign (npm run chaos): real gateway processes on a real anvil, killed with SIGKILL at
// each phase of an execution and fed RPC faults and orphaned blocks, first one gateway on SQLite,
// then three on one PostgreSQL journal sharing relayer keys by lease (rate limits in Redis). Clients
// retry as agents do; at the end the chain is asked whether every intent ran exactly once and no
// relayer nonce is left behind a gap. `--quick` for a small run; CHAOS_SEED to repeat a run's faults.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { type Address, type Hex, encodeAbiParameters, encodeFunctionData, keccak256, parseEther, toHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { type Devnet, type Intent, createDevClients, demoCounterArtifact, devnetAccounts, intentExecutorArtifact, intentTypedData, startDevnet, toIntentTuple } from '../gatewayParts.ts'
import { type FaultKind, type FaultProxy, startFaultProxy } from './faultProxy.ts'
import { type GatewayInstance, gatewayInstance } from './gatewayInstance.ts'
import { type TcpStall, startTcpStall } from './tcpStall.ts'

const quick = process.argv.includes('--quick')
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 1e9))
/** Intents sent into each kill, and through each fault phase. */
const perKill = quick ? 3 : 6
const perFaultPhase = quick ? 12 : 40
/** Share of RPC requests that meet a fault during a fault phase. */
const faultRate = 0.12
/** How long a fault phase injects faults at most; the intents not answered by then are answered without. */
const faultWindowMs = quick ? 30_000 : 60_000
const faultKinds: FaultKind[] = ['http500', 'timeout', 'reset', 'lag']
/** Blocks a reorg orphans: fewer than CONFIRMATIONS, or the gateway would have called them final. */
const orphanDepth = 2
const confirmations = 4
/** How long the relayer nonces may take to converge once every intent is answered and every journal settled. */
const nonceSettleMs = 20_000
const databaseUrl = process.env.CHAOS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const redisUrl = process.env.CHAOS_REDIS_URL ?? 'redis://127.0.0.1:6379'

type Phase = 'claim' | 'signed' | 'journaled' | 'broadcast' | 'receipt'
const phaseNames: Record<Phase, string> = {
  claim: 'after the claim (simulation held)',
  signed: 'after signing, journal write in flight (database stalled)',
  journaled: 'after the journal write (broadcast held)',
  broadcast: 'after the broadcast (node answered)',
  receipt: 'while waiting for the receipt (receipt poll held)',
}

/** A deterministic generator from the seed (mulberry32): a run's faults repeat with its CHAOS_SEED. */
function seeded(s: number) {
  let a = s >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = seeded(seed)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const log = (line: string) => process.stdout.write(`${line}\n`)

type Node = { instance: GatewayInstance; proxy: FaultProxy; db?: TcpStall; restarts: number }
type Sent = { hash: Hex; body: string; label: string; answer?: string; unanswered?: boolean; diagnosis?: string }

const cleanups: Array<() => Promise<unknown>> = []
const intents: Sent[] = []
let kills = 0
const unsettled: string[] = []
let chainRpcUrl = ''
let orphanEvents = 0
const phasesHit: Array<{ scenario: string; phase: Phase; instance: string; reached: boolean }> = []
const started = performance.now()
/** The gateways' logs, kept after the run. */
const logDir = mkdtempSync(join(tmpdir(), 'chaos-logs-'))

async function main() {
  log(`fault campaign${quick ? ' (--quick)' : ''}: seed ${seed} (CHAOS_SEED=${seed} repeats its faults), load average ${loadavg()[0]!.toFixed(2)}`)
  const devnet = await startDevnet({ blockTime: 1 })
  cleanups.push(() => devnet.stop())
  chainRpcUrl = devnet.anvil.rpcUrl
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  const fromBlock = await publicClient.getBlockNumber()
  let nonce = 70_000
  const signer = privateKeyToAccount(devnetAccounts.sender)
  const executeSigned = intentExecutorArtifact.abi.find((i) => i.type === 'function' && i.name === 'executeSigned')!
  const makeIntents = async (count: number, label: string): Promise<Sent[]> => {
    const made = await Promise.all(
      Array.from({ length: count }, async () => {
        const intent: Intent = {
          sender: devnet.demo.sender,
          target: devnet.demo.counter,
          value: 0n,
          nonce: BigInt(nonce++),
          validAfter: 0n,
          validBefore: 0n,
          policyId: devnet.demo.policies.open,
          data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
        }
        const signature = await signer.signTypedData(intentTypedData({ chainId: devnet.anvil.chainId, executor: devnet.contracts.executor, intent }))
        // The executor's IntentExecuted names keccak256(abi.encode(intent)).
        const hash = keccak256(encodeAbiParameters([executeSigned.inputs[0]!], [toIntentTuple(intent)] as never))
        const body = JSON.stringify({ ...intent, value: '0', nonce: String(intent.nonce), validAfter: '0', validBefore: '0', signature })
        return { hash, body, label }
      }),
    )
    intents.push(...made)
    return made
  }

  const base = {
    EXECUTOR_ADDRESSES: JSON.stringify({ [devnet.anvil.chainId]: devnet.contracts.executor }),
    VALIDATOR_ADDRESSES: JSON.stringify({ [devnet.anvil.chainId]: devnet.contracts.validator }),
    REGISTRY_ADDRESSES: JSON.stringify({ [devnet.anvil.chainId]: devnet.contracts.registry }),
    LOG_LEVEL: 'info',
    CONFIRMATIONS: String(confirmations),
    RECEIPT_TIMEOUT_MS: '8000',
    RECEIPT_POLL_MS: '200',
    RPC_TIMEOUT_MS: '1500',
    RECONCILE_INTERVAL_MS: '500',
    MAX_CONNECTIONS_PER_CLIENT: '10000',
    RATE_LIMIT_MAX: '1000000',
    STANDING_MAX_REVERTS_PER_SENDER: '0',
    STANDING_MAX_REVERTS_PER_CLIENT: '0',
  }
  const node = async (name: string, env: Record<string, string>, db?: TcpStall): Promise<Node> => {
    const proxy = await startFaultProxy({ target: devnet.anvil.rpcUrl })
    cleanups.push(() => proxy.close())
    const instance = gatewayInstance(name, { ...base, RPC_URLS: JSON.stringify({ [devnet.anvil.chainId]: proxy.url }), ...env }, join(logDir, `${name}.log`))
    cleanups.push(() => instance.stop())
    await instance.start(env.INSTANCE_ID ? { INSTANCE_ID: `${env.INSTANCE_ID}-0` } : {})
    return { instance, proxy, ...(db ? { db } : {}), restarts: 0 }
  }

  // ---- SQLite: one gateway, one relayer key ----
  const journalDir = mkdtempSync(join(tmpdir(), 'chaos-journal-'))
  cleanups.push(async () => rmSync(journalDir, { recursive: true, force: true }))
  const solo = await node('sqlite', { JOURNAL_PATH: join(journalDir, 'journal.sqlite'), RELAYER_PRIVATE_KEY: devnetAccounts.relayer })
  log(`\nSQLite, one gateway (${solo.instance.url}), relayer ${privateKeyToAccount(devnetAccounts.relayer).address}`)
  for (const phase of ['claim', 'journaled', 'broadcast', 'receipt'] as Phase[]) await killRound('sqlite', phase, solo, [solo], makeIntents)
  await faultPhase('sqlite', [solo], makeIntents, devnet)
  await settled([solo])

  // ---- PostgreSQL: three gateways, three keys leased, rate limits in Redis ----
  const database = `chaos_${Date.now().toString(36)}_${Math.floor(random() * 1e6).toString(36)}`
  const admin = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${database}`)
  await admin.end()
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: databaseUrl })
    await c.connect()
    await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await c.end()
  })
  const redisPrefix = `${database}:`
  cleanups.push(async () => {
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect()
    const keys = await redis.keys(`${redisPrefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
  })
  const mnemonic = 'test test test test test test test test test test test junk'
  const pool = [30, 31, 32].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
  for (const a of pool) await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [a.address, toHex(parseEther('100'))])
  const pgUrl = new URL(databaseUrl)
  const fleet: Node[] = []
  for (const name of ['a', 'b', 'c']) {
    const db = await startTcpStall({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) })
    cleanups.push(() => db.close())
    const url = new URL(databaseUrl)
    url.port = String(db.port)
    url.pathname = `/${database}`
    fleet.push(
      await node(
        name,
        {
          DATABASE_URL: url.toString(),
          INSTANCE_ID: name,
          RELAYER_PRIVATE_KEYS: pool.map((a) => toHex(a.getHdKey().privateKey!)).join(','),
          RELAYER_LEASE_TTL_MS: '3000',
          REDIS_URL: redisUrl,
          REDIS_PREFIX: redisPrefix,
        },
        db,
      ),
    )
  }
  log(`\nPostgreSQL (database ${database}), three gateways sharing keys ${pool.map((a) => a.address).join(', ')} by lease; Redis prefix ${redisPrefix}`)
  await sharesSettled(fleet)
  const phases: Phase[] = ['claim', 'signed', 'journaled', 'broadcast', 'receipt']
  for (const [i, phase] of phases.entries()) await killRound('postgres', phase, fleet[i % fleet.length]!, fleet, makeIntents)
  await faultPhase('postgres', fleet, makeIntents, devnet)
  await settled(fleet)

  // ---- the chain's verdict ----
  await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x2'])
  const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
  const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
  const times = new Map<string, number>()
  for (const l of logs) times.set(l.args.intentHash!, (times.get(l.args.intentHash!) ?? 0) + 1)
  const wrong = intents.filter((i) => times.get(i.hash) !== 1)
  const unanswered = intents.filter((i) => i.unanswered)
  const relayers = [privateKeyToAccount(devnetAccounts.relayer).address, ...pool.map((a) => a.address)]
  // The gateways fill a relayer nonce left empty under queued transactions once two reconciliation
  // passes saw it (about a second): the check waits up to nonceSettleMs for that, and says how long.
  const nonceStarted = performance.now()
  let { problems: nonceProblems, stale } = await nonceCheck(devnet, relayers)
  while (nonceProblems.length > 0 && performance.now() - nonceStarted < nonceSettleMs) {
    await sleep(1000)
    ;({ problems: nonceProblems, stale } = await nonceCheck(devnet, relayers))
  }
  const nonceWaitS = (performance.now() - nonceStarted) / 1000
  const faults = [solo, ...fleet].reduce(
    (sum, n) => {
      for (const k of faultKinds) sum[k] += n.proxy.faults[k]
      return sum
    },
    { http500: 0, timeout: 0, reset: 0, lag: 0 } as Record<FaultKind, number>,
  )
  const rpcFaults = Object.values(faults).reduce((a, b) => a + b, 0)
  const F = rpcFaults + orphanEvents
  const exactlyOnce = intents.length - wrong.length
  const seconds = (performance.now() - started) / 1000
  log(`\nphases reached before each kill:\n${phasesHit.map((p) => `  ${p.scenario.padEnd(8)} ${p.instance.padEnd(8)} ${p.reached ? 'hit   ' : 'MISSED'} ${phaseNames[p.phase]}`).join('\n')}`)
  log(
    `faults: ${rpcFaults} RPC faults (HTTP 500 ${faults.http500}, timeouts ${faults.timeout}, resets after the node got the request ${faults.reset}, lagging block numbers ${faults.lag}), ${orphanEvents} reorgs orphaning ${orphanDepth} blocks each`,
  )
  log(
    `relayer nonces: ${nonceProblems.length === 0 ? `consistent for ${relayers.length} keys (mined = pending, nothing in the pool at or above the mined nonce)` : nonceProblems.join('; ')} (checked for ${nonceWaitS.toFixed(1)} s after the last answer, ${nonceSettleMs / 1000} s at most)`,
  )
  for (const line of stale) log(`  ${line}`)
  for (const w of wrong) log(`  NOT exactly once: ${w.hash} (${w.label}) executed ${times.get(w.hash) ?? 0} times; last answer ${w.answer ?? 'none'}`)
  for (const u of unanswered) log(`  never answered 200 by a gateway (the chain counted it ${times.get(u.hash) ?? 0} times): ${u.hash} (${u.label})`)
  log(`\n${exactlyOnce} of ${intents.length} intents executed exactly once, ${kills} kills, ${F} faults   (${seconds.toFixed(0)} s, seed ${seed})`)
  const file = `bench/results/chaos-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  writeFileSync(
    file,
    JSON.stringify(
      {
        quick,
        seed,
        intents: intents.length,
        exactlyOnce,
        kills,
        faults,
        orphanEvents,
        phasesHit,
        nonceProblems,
        nonceWaitS,
        stalePool: stale,
        unsettled,
        unanswered: unanswered.map((u) => ({ hash: u.hash, label: u.label, answer: u.answer, diagnosis: u.diagnosis })),
        wrong: wrong.map((w) => ({ ...w, times: times.get(w.hash) ?? 0, body: undefined })),
        seconds,
      },
      null,
      2,
    ),
  )
  log(`wrote ${file}; the gateways' logs are in ${logDir}`)
  return wrong.length === 0 && nonceProblems.length === 0 && unanswered.length === 0 && unsettled.length === 0
}

/**
 * Sends `perKill` intents to `target`, waits until one of its executions reaches `phase` (the proxy
 * holds or watches the RPC call that marks it), kills the gateway with SIGKILL, starts it again,
 * and lets the clients retry each intent on any live gateway until it is answered.
 */
async function killRound(scenario: string, phase: Phase, target: Node, all: Node[], makeIntents: (n: number, label: string) => Promise<Sent[]>) {
  const batch = await makeIntents(perKill, `${scenario}: kill ${phaseNames[phase]}`)
  const { proxy, db } = target
  const simulation = ['eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1']
  const reached = (async () => {
    if (phase === 'claim') return void (await proxy.hold(simulation))
    if (phase === 'signed') {
      if (!db) throw new Error('the signed phase needs the database relay')
      const held = await proxy.hold(simulation)
      db.stall()
      const wrote = db.nextWrite()
      held.forward()
      await wrote
      return void (await sleep(50))
    }
    if (phase === 'journaled') return void (await proxy.hold(['eth_sendRawTransaction']))
    if (phase === 'broadcast') return void (await proxy.afterAnswer(['eth_sendRawTransaction']))
    await proxy.afterAnswer(['eth_sendRawTransaction'])
    await proxy.hold(['eth_getTransactionReceipt', 'eth_blockNumber', 'eth_getBlockByNumber'])
  })()
  const first = batch.map((s) =>
    fetch(`${target.instance.url}/intents/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: s.body })
      .then((r) => r.text())
      .catch(() => undefined),
  )
  const hit = await Promise.race([reached.then(() => true), sleep(20_000).then(() => false)])
  await target.instance.kill()
  kills++
  phasesHit.push({ scenario, phase, instance: target.instance.name, reached: hit })
  proxy.clear()
  db?.resume()
  await Promise.all(first)
  // A fleet instance comes back under a new INSTANCE_ID (as a replaced pod does): the dead one's
  // claims are then known orphaned once its heartbeat lapses. The same id again would leave them
  // held until PostgreSQL's stale-claim age (two minutes).
  target.restarts++
  await target.instance.start(all.length > 1 ? { INSTANCE_ID: `${target.instance.name}-${target.restarts}` } : {})
  const t = performance.now()
  await Promise.all(batch.map((s) => deliver(s, all)))
  log(
    `  ${hit ? 'killed' : 'killed (phase not seen in 20 s)'} ${target.instance.name} ${phaseNames[phase]}; restarted; ${batch.length} intents answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}

/** Intents sent to every gateway while the proxies inject faults, and a reorg once some are mined. */
async function faultPhase(scenario: string, nodes: Node[], makeIntents: (n: number, label: string) => Promise<Sent[]>, devnet: Devnet) {
  const batch = await makeIntents(perFaultPhase, `${scenario}: RPC faults and a reorg`)
  const before = nodes.reduce((a, n) => a + Object.values(n.proxy.faults).reduce((x, y) => x + y, 0), 0)
  for (const n of nodes) n.proxy.faultRate(faultRate, faultKinds, random)
  const t = performance.now()
  const hashes = new Set(batch.map((b) => b.hash))
  // The reorg: once some of these intents are mined, the last blocks are orphaned (anvil_reorg
  // mines as many empty blocks in their place).
  const reorg = (async () => {
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    const from = await publicClient.getBlockNumber()
    for (let i = 0; i < 120; i++) {
      await sleep(500)
      const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock: from })
      if (logs.filter((l) => hashes.has(l.args.intentHash!)).length >= Math.ceil(batch.length / 4)) {
        const head = await publicClient.getBlockNumber()
        const orphaned = logs.filter((l) => hashes.has(l.args.intentHash!) && l.blockNumber! > head - BigInt(orphanDepth)).length
        await rpc(devnet.anvil.rpcUrl, 'anvil_reorg', [orphanDepth, []])
        orphanEvents++
        return orphaned
      }
    }
    return 0
  })()
  // Faults for at most faultWindowMs; then the gateways must converge without them.
  let inWindow = 0
  const delivered = Promise.all(batch.map((s) => deliver(s, nodes).then(() => void (performance.now() - t < faultWindowMs && !s.unanswered && inWindow++))))
  await Promise.race([delivered, sleep(faultWindowMs)])
  for (const n of nodes) n.proxy.faultRate(0, faultKinds, random)
  await delivered
  const orphaned = await reorg
  const after = nodes.reduce((a, n) => a + Object.values(n.proxy.faults).reduce((x, y) => x + y, 0), 0)
  log(
    `  ${batch.length} intents through ${after - before} RPC faults (${(faultRate * 100).toFixed(0)}% of requests) and a reorg of ${orphanDepth} blocks that orphaned ${orphaned} of their executions: answered in ${((performance.now() - t) / 1000).toFixed(1)} s (${inWindow} while the faults lasted, ${faultWindowMs / 1000} s at most)`,
  )
}

/**
 * A client that retries as an agent does: the same intent again (to any live gateway) until it is
 * answered 200 (executed, or replayed), or 409 0x22 (executed by a transaction the gateway cannot
 * name: the chain's count decides). 202 (in flight, not final), 503 and lost connections: again.
 */
async function deliver(sent: Sent, nodes: Node[], timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const live = nodes.filter((n) => n.instance.alive)
    const n = live[Math.floor(random() * live.length)]
    if (n) {
      try {
        const res = await fetch(`${n.instance.url}/intents/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sent.body, signal: AbortSignal.timeout(30_000) })
        const text = await res.text()
        const erc1066 = res.headers.get('x-erc1066-status')
        sent.answer = `${res.status} ${erc1066 ?? ''} from ${n.instance.name}: ${text.slice(0, 200)}`
        if (res.status === 200 || (res.status === 409 && erc1066 === '0x22')) return
      } catch (err) {
        sent.answer = `no answer from ${n.instance.name}: ${(err as Error).message}`
      }
    }
    if (Date.now() > deadline) {
      sent.unanswered = true
      sent.diagnosis = await diagnose(sent, nodes).catch((err: unknown) => `diagnosis failed: ${(err as Error).message}`)
      log(`  NOT ANSWERED within ${timeoutMs / 1000} s: ${sent.hash} (${sent.label}); last answer ${sent.answer}\n    ${sent.diagnosis}`)
      return
    }
    await sleep(400 + random() * 400)
  }
}

/** What the gateways' journal and the chain say of an intent that was not answered in time. */
async function diagnose(sent: Sent, nodes: Node[]): Promise<string> {
  const live = nodes.find((n) => n.instance.alive)
  if (!live) return 'no gateway alive'
  const record = (await (await fetch(`${live.instance.url}/intents/${sent.hash}`)).json()) as Record<string, unknown>
  const tx = (record.transactionHash ?? (record.execution as Record<string, unknown> | undefined)?.transactionHash) as string | undefined
  const rpcUrl = chainRpcUrl
  const onChain = tx
    ? {
        receipt: await rpc(rpcUrl, 'eth_getTransactionReceipt', [tx]).then((r) => (r ? { block: Number((r as { blockNumber: string }).blockNumber), status: (r as { status: string }).status } : null)),
        transaction: await rpc(rpcUrl, 'eth_getTransactionByHash', [tx]).then((t) =>
          t ? { from: (t as { from: string }).from, nonce: Number((t as { nonce: string }).nonce), block: (t as { blockNumber: string | null }).blockNumber } : null,
        ),
      }
    : undefined
  const head = Number(await rpc(rpcUrl, 'eth_blockNumber', []))
  return `journal (via ${live.instance.name}): ${JSON.stringify(record).slice(0, 600)}; chain head ${head}; its transaction on chain: ${JSON.stringify(onChain)}`
}

/** Waits until no gateway has an execution left unsettled in its journal. */
async function settled(nodes: Node[]) {
  const deadline = Date.now() + 60_000
  for (;;) {
    const pending = await Promise.all(
      nodes.map(async (n) => ((await (await fetch(`${n.instance.url}/health`)).json()) as { journal?: { pendingExecutions?: number } }).journal?.pendingExecutions ?? 0),
    )
    if (pending.every((p) => p === 0)) return
    if (Date.now() > deadline) {
      unsettled.push(`${nodes.map((n, i) => `${n.instance.name} ${pending[i]}`).join(', ')} executions still pending in the journal 60 s after the last answer`)
      log(`  ${unsettled.at(-1)}`)
      return
    }
    await sleep(500)
  }
}

/** Waits until every gateway of the fleet holds a key (one each of three). */
async function sharesSettled(nodes: Node[]) {
  const deadline = Date.now() + 30_000
  for (;;) {
    const held = await Promise.all(
      nodes.map(async (n) => ((await (await fetch(`${n.instance.url}/chains/31337`)).json()) as { relayers: Array<{ held: boolean }> }).relayers.filter((r) => r.held).length),
    )
    if (held.every((h) => h === 1)) return
    if (Date.now() > deadline) throw new Error(`the keys were not shared 1/1/1 within 30 s: ${held.join('/')}`)
    await sleep(300)
  }
}

/**
 * Each relayer: its mined nonce equals its pending one, and the node's pool holds nothing of it at
 * or above the mined nonce (a transaction there, not pending, waits behind a gap). Transactions
 * below the mined nonce can never mine: reported apart, as what anvil kept from orphaned blocks.
 */
async function nonceCheck(devnet: Devnet, relayers: Address[]): Promise<{ problems: string[]; stale: string[] }> {
  const problems: string[] = []
  const stale: string[] = []
  const pool = (await rpc(devnet.anvil.rpcUrl, 'txpool_content', [])) as Record<'pending' | 'queued', Record<string, Record<string, unknown>>>
  for (const address of relayers) {
    const [mined = 0, withPending = 0] = await Promise.all(['latest', 'pending'].map(async (tag) => Number(await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionCount', [address, tag]))))
    const nonces = (['pending', 'queued'] as const).flatMap((kind) =>
      Object.entries(pool[kind])
        .filter(([k]) => k.toLowerCase() === address.toLowerCase())
        .flatMap(([, byNonce]) => Object.keys(byNonce).map((n) => ({ kind, nonce: Number(n) }))),
    )
    const above = nonces.filter((n) => n.nonce >= mined)
    const below = nonces.filter((n) => n.nonce < mined)
    if (mined !== withPending || above.length > 0)
      problems.push(`${address}: mined nonce ${mined}, pending ${withPending}, in the pool at or above it: ${above.map((n) => `${n.nonce} (${n.kind})`).join(', ') || 'none'}`)
    if (below.length > 0)
      stale.push(
        `${address}: ${below.length} transactions below its mined nonce ${mined} left in anvil's pool (${[...new Set(below.map((n) => n.kind))].join(', ')}; nonces ${Math.min(...below.map((n) => n.nonce))}-${Math.max(...below.map((n) => n.nonce))})`,
      )
  }
  return { problems, stale }
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

async function cleanUp() {
  for (const c of cleanups.reverse()) await c().catch((err: unknown) => process.stderr.write(`cleanup: ${(err as Error).message}\n`))
}
process.once('SIGINT', () => {
  log('\ninterrupted: stopping the gateways, proxies and anvil, dropping the database')
  void cleanUp().finally(() => process.exit(130))
})
let ok = false
try {
  ok = await main()
} catch (err) {
  process.stderr.write(`\nthe fault campaign failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
}
await cleanUp()
process.exit(ok ? 0 : 1)
