// WORKERS=2: two worker processes on one port (Node's cluster), each an instance of a fleet on one
// PostgreSQL journal holding its relayer key by lease. Validate and execute are served by both;
// 60 intents each sent twice at once execute exactly once (IntentExecuted counted on chain), both
// workers' keys sent transactions; kill -9 of a worker: the primary starts another, and intents
// sent around the kill (retried by the client when their connection died) still execute exactly
// once; Ctrl-C (SIGINT) stops the primary and every worker. The limits counted in memory (rate
// limits, standing, budgets) need REDIS_URL to be shared, else the start is refused; the caps on
// what one process holds (connections per client) are divided among the workers.
import assert from 'node:assert/strict'
import http from 'node:http'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { type Hex, parseEther, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { chainEnv, startGatewayProcess } from '../support/gatewayProcess.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { type GatewayProcess, runGateway, waitFor } from '../support/runGateway.ts'
import { post, request, rpc, signedIntent } from '../support/testGateway.ts'

const mnemonic = 'test test test test test test test test test test test junk'
const pool = [40, 41].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
const poolKeys = pool.map((a) => toHex(a.getHdKey().privateKey!)) as Hex[]
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** GET on a fresh connection (the primary hands each new connection to the next worker). */
function getFresh(url: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
      })
      .on('error', reject)
  })
}

describe('WORKERS=2: worker processes on one port', () => {
  let devnet: Devnet
  let database: TestDatabase
  let gw: GatewayProcess
  let baseUrl: string
  let nonce = 70_000

  before(async () => {
    devnet = await startDevnet({ blockTime: 1 })
    for (const account of pool)
      await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [account.address, toHex(parseEther('100'))])
    database = await createTestDatabase('workers')
    const { RELAYER_PRIVATE_KEY: _, ...base } = chainEnv(devnet)
    ;({ gw, baseUrl } = await startGatewayProcess({
      ...base,
      WORKERS: '2',
      RELAYER_PRIVATE_KEYS: poolKeys.join(','),
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `workers-test-${process.pid}:`,
      INSTANCE_ID: 'wk',
      RELAYER_LEASE_TTL_MS: '3000',
      RECEIPT_TIMEOUT_MS: '60000',
      MAX_CONNECTIONS_PER_CLIENT: '10000',
    }))
  })
  after(async () => {
    if (gw && gw.child.exitCode === null) gw.child.kill('SIGKILL')
    await devnet?.stop()
    await database?.drop().catch(() => {})
  })

  /** Each worker, seen through /health on fresh connections, holds one key: which instances answered. */
  const bothWorkersServing = () =>
    eventually('both workers serving with a key each', 30_000, async () => {
      const seen = new Map<string, number>()
      for (let i = 0; i < 8; i++) {
        const [health, chain] = await Promise.all([getFresh(`${baseUrl}/health`), getFresh(`${baseUrl}/chains/31337`)])
        assert.equal(health.status, 200)
        seen.set(health.body.instance.id, 0)
        const held = (chain.body.relayers as Array<{ held: boolean }>).filter((r) => r.held).length
        if (held !== 1) return undefined
      }
      return seen.size === 2 ? [...seen.keys()].sort() : undefined
    })

  const executedSince = async (fromBlock: bigint) => {
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
    const senders = new Set(
      await Promise.all(
        logs.map(async (l) => (await publicClient.getTransaction({ hash: l.transactionHash })).from.toLowerCase()),
      ),
    )
    return { hashes: logs.map((l) => l.args.intentHash as string), senders }
  }
  const blockNumber = () => createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId).publicClient.getBlockNumber()

  it('two workers, each its own instance id and key; validate answers 200', async () => {
    assert.deepEqual(await bothWorkersServing(), ['wk-w1', 'wk-w2'])
    const res = await post(baseUrl, '/intents/validate', await signedIntent(devnet, { nonce: String(nonce++) }))
    assert.equal(res.status, 200, res.text)
    assert.equal(res.headers.get('x-erc1066-status'), '0x01')
  })

  it('60 intents, each sent twice at once, execute exactly once; both workers executed', async (t) => {
    const from = await blockNumber()
    const bodies = await Promise.all(Array.from({ length: 60 }, () => signedIntent(devnet, { nonce: String(nonce++) })))
    // A worker whose 3 s key lease lapsed under the burst (its renewal late on a loaded machine)
    // answers 503 no-relayer-key, having claimed and sent nothing: a client sends it again after
    // Retry-After, as here. Exactly once is what this test holds, whichever worker sends.
    let unheld = 0
    const execute = async (body: unknown) => {
      for (let attempt = 0; ; attempt++) {
        const res = await post(baseUrl, '/intents/execute', body)
        if (res.status !== 503 || res.body?.type !== 'urn:intent-gateway:problem:no-relayer-key' || attempt >= 10)
          return res
        unheld++
        assert.equal(res.headers.get('retry-after'), '2')
        await new Promise((r) => setTimeout(r, 2_000))
      }
    }
    const answers = await Promise.all(bodies.flatMap((b) => [execute(b), execute(b)]))
    if (unheld > 0) t.diagnostic(`${unheld} answers 503 no-relayer-key (a lease lapsed under the burst), sent again`)
    const sent = new Map<string, number>()
    for (const a of answers) {
      assert.ok(
        a.status === 200 || (a.status === 202 && a.body?.replayed === true),
        `${a.status} ${a.text.slice(0, 300)}`,
      )
      if (a.status === 200 && a.body?.replayed !== true)
        sent.set(a.headers.get('x-intent-hash')!, (sent.get(a.headers.get('x-intent-hash')!) ?? 0) + 1)
    }
    assert.equal(sent.size, 60)
    assert.ok(
      [...sent.values()].every((n) => n === 1),
      'one answer per intent says it sent',
    )
    const { hashes, senders } = await executedSince(from + 1n)
    assert.equal(hashes.length, 60, 'IntentExecuted: 60 events')
    assert.equal(new Set(hashes).size, 60, 'each intent once')
    assert.deepEqual(
      [...senders].sort(),
      pool.map((a) => a.address.toLowerCase()).sort(),
      'both workers (each with its key) sent',
    )
  })

  it('kill -9 of a worker: the primary starts another; intents around the kill execute exactly once', async () => {
    const pids = [...gw.stdout().matchAll(/"worker":(\d),"pid":(\d+)[^\n]*worker \d listening/g)].map((m) => ({
      worker: Number(m[1]),
      pid: Number(m[2]),
    }))
    const victim = pids.find((p) => p.worker === 1)!
    assert.ok(victim, gw.stdout().slice(-2000))
    const from = await blockNumber()
    const bodies = await Promise.all(Array.from({ length: 30 }, () => signedIntent(devnet, { nonce: String(nonce++) })))
    // Sent while the worker dies: a request whose connection died, or that the dead worker never
    // answered, is retried, as a client would. A connection the primary had handed to the worker as
    // it died gets no answer at all: without a timeout of its own the request waited for fetch's
    // (300 s), and this test took five minutes.
    const send = async (body: unknown) => {
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await request(baseUrl, '/intents/execute', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(20_000),
          })
          if (res.status === 200 || res.status === 202) return res
          if (attempt > 40) return res
        } catch (err) {
          if (attempt > 40) throw err
        }
        await new Promise((r) => setTimeout(r, 500))
      }
    }
    const all = Promise.all(bodies.map((b, i) => new Promise((r) => setTimeout(r, i * 20)).then(() => send(b))))
    await new Promise((r) => setTimeout(r, 200))
    process.kill(victim.pid, 'SIGKILL')
    await eventually('another worker 1', 30_000, async () =>
      /worker 1 exited: starting another/.test(gw.stdout()) &&
      [...gw.stdout().matchAll(/worker 1 listening/g)].length >= 2
        ? true
        : undefined,
    )
    const answers = await all
    for (const a of answers) assert.ok(a.status === 200 || a.status === 202, `${a.status} ${a.text.slice(0, 300)}`)
    const hashes = new Set(answers.map((a) => a.headers.get('x-intent-hash')))
    assert.equal(hashes.size, 30)
    // Those answered 202 (still pending) are settled by the journal's reconciliation.
    const seen = await eventually('every intent executed', 60_000, async () => {
      const { hashes: executed } = await executedSince(from + 1n)
      return executed.length >= 30 ? executed : undefined
    })
    assert.equal(seen.length, 30, 'no intent executed twice')
    assert.deepEqual(new Set(seen), hashes)
    assert.deepEqual(await bothWorkersServing(), ['wk-w1', 'wk-w2'])
  })

  it('refuses to start WORKERS=2 without REDIS_URL, naming it: each worker would count limits, standing and budgets alone', async () => {
    const refused = runGateway({ env: { ...chainEnv(devnet), WORKERS: '2', DATABASE_URL: database.url } })
    try {
      // A gateway that starts instead (as before REDIS_URL was required) fails the test rather than hang it.
      await waitFor(
        () => refused.child.exitCode !== null || /listening on/.test(refused.stdout()),
        60_000,
        'the gateway to exit or listen',
      )
    } finally {
      if (refused.child.exitCode === null) refused.child.kill('SIGKILL')
    }
    assert.equal(await refused.exit, 1, refused.stdout().slice(-500))
    assert.match(
      refused.stderr(),
      /WORKERS: more than 1 worker needs REDIS_URL \(rate limits, standing and budgets shared by the workers\)/,
    )
  })

  it("divides MAX_CONNECTIONS_PER_CLIENT among the workers: one client holds at most the setting's connections in all", async () => {
    const capped = await startGatewayProcess({
      ...chainEnv(devnet),
      WORKERS: '2',
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `workers-test-cap-${process.pid}:`,
      INSTANCE_ID: 'cap',
      MAX_CONNECTIONS_PER_CLIENT: '4',
      IDLE_TIMEOUT_MS: '20000',
    })
    const sockets: Socket[] = []
    try {
      // Both workers take connections (the first one's listening line comes first).
      await waitFor(
        () => /worker 1 listening/.test(capped.gw.stdout()) && /worker 2 listening/.test(capped.gw.stdout()),
        60_000,
        'both workers listening',
      )
      // Connections that send nothing, handed to the workers in turn: 2 each are kept, the rest closed at accept.
      const closed = new Set<number>()
      for (let i = 0; i < 8; i++) {
        const socket = connect(Number(new URL(capped.baseUrl).port), '127.0.0.1')
        socket.on('error', () => undefined)
        socket.on('close', () => closed.add(i))
        sockets.push(socket)
        await new Promise((r) => setTimeout(r, 50))
      }
      await new Promise((r) => setTimeout(r, 1_000))
      assert.equal(sockets.length - closed.size, 4, `${8 - closed.size} of 8 connections kept`)
    } finally {
      for (const s of sockets) s.destroy()
      capped.gw.child.kill('SIGINT')
      await capped.gw.exit
    }
  })

  it('Ctrl-C (SIGINT to every process of the group) stops the primary and both workers cleanly, none restarted', async () => {
    const workerPids = [...gw.stdout().matchAll(/"pid":(\d+)[^\n]*worker \d listening/g)].map((m) => Number(m[1]))
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    // The workers first, as a terminal may deliver it: they leave it to the primary.
    for (const pid of workerPids.filter(alive)) process.kill(pid, 'SIGINT')
    await new Promise((r) => setTimeout(r, 300))
    assert.equal(workerPids.filter(alive).length, 2, 'the workers still serve')
    const restartsBefore = [...gw.stdout().matchAll(/exited: starting another/g)].length
    gw.child.kill('SIGINT')
    assert.equal(await gw.exit, 0)
    assert.equal(
      [...gw.stdout().matchAll(/exited: starting another/g)].length,
      restartsBefore,
      'no worker restarted while stopping',
    )
    for (const pid of workerPids) assert.throws(() => process.kill(pid, 0), 'no worker left running')
  })
})
