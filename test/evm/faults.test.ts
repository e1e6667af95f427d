// Faults against real anvil nodes: a hung node and a stopped one, a transaction the node drops, one
// that another transaction replaces, the gateway killed with SIGKILL in the middle of concurrent
// executes, and SIGTERM with executes in flight. Whatever happens, each intent the gateway took
// runs on-chain exactly once and its journal record ends final.
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { startAnvil } from '../../src/chains/evm/devnet/startAnvil.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { eventually } from '../support/eventually.ts'
import { chainEnv, startGatewayProcess } from '../support/gatewayProcess.ts'
import { type GatewayProcess, waitFor } from '../support/runGateway.ts'
import {
  demoIntent,
  type HttpResult,
  post,
  request,
  rpc,
  signedIntent,
  startWorld,
  type World,
} from '../support/testGateway.ts'

const relayer = privateKeyToAccount(devnetAccounts.relayer).address
const chainHeader = { 'x-chain-id': '31337' }
const dir = mkdtempSync(join(tmpdir(), 'faults-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What the chain says: how often each intent ran (IntentExecuted events) and the counter. */
function chainView(devnet: Devnet) {
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
  return {
    publicClient,
    count: () =>
      publicClient.readContract({
        address: devnet.contracts.counter,
        abi: demoCounterArtifact.abi,
        functionName: 'count',
      }),
    async executions(intentHash: Hex, fromBlock: bigint) {
      const logs = await publicClient.getLogs({
        address: devnet.contracts.executor,
        event,
        args: { intentHash },
        fromBlock,
      })
      return logs.length
    },
    /** Relayer transactions the node holds but has not mined. */
    async unmined() {
      const [pending, latest] = await Promise.all([
        publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }),
        publicClient.getTransactionCount({ address: relayer, blockTag: 'latest' }),
      ])
      return pending - latest
    },
  }
}

/** Journal rows by state, read straight from the file (only while no gateway holds it). */
function journalRows(path: string): Array<{ intent_hash: string; state: string; tx_bytes: string | null }> {
  const db = new Database(path)
  try {
    return db.prepare('SELECT intent_hash, state, tx_bytes FROM executions ORDER BY id').all() as never
  } finally {
    db.close()
  }
}

const tally = (rows: Array<{ state: string }>) =>
  rows.reduce<Record<string, number>>((t, r) => {
    t[r.state] = (t[r.state] ?? 0) + 1
    return t
  }, {})

/** Polls GET /intents/{hash} until the execution is final (not 202). */
async function finalState(baseUrl: string, intentHash: string): Promise<HttpResult> {
  return eventually(`a final state for ${intentHash}`, 30_000, async () => {
    const res = await request(baseUrl, `/intents/${intentHash}`)
    return res.status === 202 ? undefined : res
  })
}

/** A world whose node mines only on evm_mine, with a short receipt wait and fast reconciliation. */
async function withManualMining(
  test: (ctx: {
    world: World
    rpcUrl: string
    chain: ReturnType<typeof chainView>
    fromBlock: bigint
    countBefore: bigint
  }) => Promise<void>,
): Promise<void> {
  const world = await startWorld({ receiptTimeoutMs: 300, reconcileIntervalMs: 200 })
  const rpcUrl = world.devnet.anvil.rpcUrl
  const chain = chainView(world.devnet)
  try {
    await rpc(rpcUrl, 'evm_setAutomine', [false])
    await test({
      world,
      rpcUrl,
      chain,
      fromBlock: await chain.publicClient.getBlockNumber(),
      countBefore: await chain.count(),
    })
  } finally {
    await rpc(rpcUrl, 'evm_setAutomine', [true]).catch(() => undefined)
    await world.stop()
  }
}

describe('faults', () => {
  it('a hung node and a stopped node answer 503 (0xF4) within the RPC deadline and show in /health; the node back is served again without a restart', async () => {
    const statePath = join(dir, 'anvil-state.json')
    const rpcTimeoutMs = 1000
    const world = await startWorld({ rpcTimeoutMs, statePath })
    let anvil = world.devnet.anvil
    try {
      const validate = () =>
        post(world.gateway.baseUrl, '/intents/validate', demoIntent(world.devnet, { nonce: '1' }), chainHeader)
      const health = async () => (await request(world.gateway.baseUrl, '/health')).body.chains[0]
      assert.equal((await validate()).status, 200)

      const expectUnavailable = async (what: string) => {
        const started = performance.now()
        const res = await validate()
        const elapsed = performance.now() - started
        assert.equal(res.status, 503, what)
        assertCommonHeaders(res, { status: '0xF4' })
        assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After')
        // A deadline, not a speed claim: the request must not outlive the RPC timeout by much.
        assert.ok(elapsed < rpcTimeoutMs + 2000, `${what}: answered after ${Math.round(elapsed)} ms`)
        const chain = await health()
        assert.equal(chain.reachable, false, what)
        assert.ok(chain.error, what)
      }

      process.kill(anvil.pid, 'SIGSTOP') // hung: accepts connections, never answers
      // Stopped for good before the request (a signal reaches a busy multi-threaded process a little later).
      await eventually('anvil stopped', 5_000, async () =>
        readFileSync(`/proc/${anvil.pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') ? true : undefined,
      )
      try {
        await expectUnavailable('hung node')
      } finally {
        process.kill(anvil.pid, 'SIGCONT')
      }
      await eventually('the resumed node to be served', 15_000, async () =>
        (await validate()).status === 200 ? true : undefined,
      )

      await anvil.stop() // stopped: connection refused; its state is written to statePath
      await expectUnavailable('stopped node')

      anvil = await startAnvil({ port: anvil.port, statePath })
      await eventually('the restarted node to be served', 15_000, async () =>
        (await validate()).status === 200 ? true : undefined,
      )
      const chain = await health()
      assert.equal(chain.reachable, true)
    } finally {
      await world.gateway.close()
      await anvil.stop()
    }
  })

  it('a transaction the node drops is broadcast again from the journal and executes once', async () => {
    await withManualMining(async ({ world, rpcUrl, chain, fromBlock, countBefore }) => {
      const res = await post(
        world.gateway.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '11' }),
        chainHeader,
      )
      assert.equal(res.status, 202)
      const { intentHash, transactionHash } = res.body as { intentHash: Hex; transactionHash: Hex }

      assert.equal(await rpc(rpcUrl, 'anvil_dropTransaction', [transactionHash]), transactionHash)
      assert.equal(await rpc(rpcUrl, 'eth_getTransactionByHash', [transactionHash]), null, 'the node no longer has it')
      await eventually('the reconciler to broadcast it again', 10_000, async () =>
        (await rpc(rpcUrl, 'eth_getTransactionByHash', [transactionHash])) ? true : undefined,
      )
      assert.ok(world.gateway.logs.some((l) => l.includes('the node had lost a journaled transaction')))

      await rpc(rpcUrl, 'evm_mine', [])
      const done = await finalState(world.gateway.baseUrl, intentHash)
      assert.equal(done.status, 200)
      assert.equal(done.body.state, 'mined')
      assert.equal(done.body.transactionHash, transactionHash, 'the very same transaction')
      assert.equal(await chain.executions(intentHash, fromBlock), 1)
      assert.equal((await chain.count()) - countBefore, 1n)
    })
  })

  it('a transaction replaced at the relayer nonce is settled as dropped, and the intent can then execute once', async () => {
    await withManualMining(async ({ world, rpcUrl, chain, fromBlock, countBefore }) => {
      const execute = async () =>
        post(world.gateway.baseUrl, '/intents/execute', await signedIntent(world.devnet, { nonce: '12' }), chainHeader)
      const res = await execute()
      assert.equal(res.status, 202)
      const { intentHash, transactionHash } = res.body as { intentHash: Hex; transactionHash: Hex }
      const ours = await chain.publicClient.getTransaction({ hash: transactionHash })

      // The relayer's key, used elsewhere: a cancel at the same nonce, paying more.
      const wallet = createDevClients(rpcUrl, 31337).walletFor(devnetAccounts.relayer)
      const replacement = await wallet.sendTransaction({
        account: wallet.account!,
        chain: wallet.chain,
        to: relayer,
        value: 0n,
        nonce: ours.nonce,
        maxFeePerGas: ours.maxFeePerGas! * 3n + parseGwei('1'),
        maxPriorityFeePerGas: ours.maxPriorityFeePerGas! * 3n + parseGwei('1'),
      })
      assert.notEqual(replacement, transactionHash)
      await rpc(rpcUrl, 'evm_mine', [])

      const dropped = await finalState(world.gateway.baseUrl, intentHash)
      assert.equal(dropped.body.state, 'dropped')
      assert.equal(dropped.body.erc1066Status, '0xF0')
      assert.match(dropped.body.detail, /replaced .* not executed/)
      assert.equal(await chain.executions(intentHash, fromBlock), 0, 'the cancel ran, not the intent')

      // Not executed, so not held: the same intent goes through now, once.
      await rpc(rpcUrl, 'evm_setAutomine', [true])
      const again = await execute()
      // Mined at once (automine): 200, or 202 where a loaded machine outlasts the 300 ms receipt wait.
      assert.ok(again.status === 200 || again.status === 202, `${again.status} ${again.text}`)
      const mined = await finalState(world.gateway.baseUrl, intentHash)
      assert.equal(mined.body.state, 'mined', mined.text)
      assert.notEqual(mined.body.transactionHash, transactionHash, 'a new transaction, not the replaced one')
      const repeat = await execute()
      assert.equal(repeat.status, 200)
      assert.equal(repeat.body.replayed, true)
      assert.equal(await chain.executions(intentHash, fromBlock), 1)
      assert.equal((await chain.count()) - countBefore, 1n)
    })
  })

  it('SIGKILL in the middle of concurrent executes: after a restart every intent has executed exactly once and every record is final', async () => {
    const rounds = Number(process.env.FAULT_ROUNDS ?? 2)
    const perRound = 24
    const devnet = await startDevnet({ blockTime: 1 })
    const chain = chainView(devnet)
    const journalPath = join(dir, 'kill', 'journal.sqlite')
    const env = {
      ...chainEnv(devnet),
      JOURNAL_PATH: journalPath,
      RECEIPT_TIMEOUT_MS: '8000',
      RECONCILE_INTERVAL_MS: '300',
    }
    const totals = { kills: 0, intents: 0, pendingAtKill: 0, answeredBeforeKill: 0, lost: 0, duplicated: 0 }
    let running: GatewayProcess | undefined
    try {
      for (let round = 0; round < rounds; round++) {
        let { gw, baseUrl } = await startGatewayProcess(env)
        running = gw
        const bodies = await Promise.all(
          Array.from({ length: perRound }, (_, i) =>
            signedIntent(devnet, { nonce: String(1000 + round * perRound + i) }),
          ),
        )
        const hashes = await Promise.all(
          bodies.map(
            async (b) => (await post(baseUrl, '/intents/validate', b, chainHeader)).headers.get('x-intent-hash') as Hex,
          ),
        )
        const fromBlock = await chain.publicClient.getBlockNumber()
        const countBefore = await chain.count()

        // Submitted 100 ms apart, so that they spread over more than two blocks.
        let answered = 0
        const inFlight = bodies.map(async (b, i) => {
          await sleep(i * 100)
          const res = await post(baseUrl, '/intents/execute', b, chainHeader).catch(() => undefined)
          if (res) answered++
          return res
        })
        // Round 0 kills as soon as the node holds unmined transactions of the gateway's; later
        // rounds wait until some executions have also been answered.
        await eventually('executions in flight', 20_000, async () =>
          (await chain.unmined()) > 0 && (round === 0 || answered > 0) ? true : undefined,
        )
        gw.child.kill('SIGKILL')
        await gw.exit
        totals.kills++
        totals.answeredBeforeKill += (await Promise.all(inFlight)).filter(Boolean).length

        const atKill = tally(journalRows(journalPath).filter((r) => hashes.includes(r.intent_hash as Hex)))
        assert.ok(
          (atKill.pending ?? 0) + (atKill.claimed ?? 0) >= 1,
          `the kill must land with executions in flight: ${JSON.stringify(atKill)}`,
        )
        totals.pendingAtKill += atKill.pending ?? 0

        ;({ gw, baseUrl } = await startGatewayProcess(env))
        running = gw
        // The client retries every intent, as an agent does after a connection reset.
        const retries = await Promise.all(bodies.map((b) => post(baseUrl, '/intents/execute', b, chainHeader)))
        for (const r of retries) {
          const ok = r.status === 200 || r.status === 202
          assert.ok(ok, `retry answered ${r.status} ${r.text}`)
        }
        for (const h of hashes) {
          const res = await finalState(baseUrl, h)
          assert.equal(res.status, 200, res.text)
          assert.equal(res.body.state, 'mined')
        }
        for (const h of hashes) {
          const n = await chain.executions(h, fromBlock)
          if (n === 0) totals.lost++
          if (n > 1) totals.duplicated += n - 1
        }
        totals.intents += perRound
        assert.equal((await chain.count()) - countBefore, BigInt(perRound), 'the counter moved once per intent')

        gw.child.kill('SIGTERM')
        assert.equal(await gw.exit, 0)
        running = undefined
        const rows = journalRows(journalPath)
        assert.equal(
          rows.filter((r) => r.state === 'pending' || r.state === 'claimed').length,
          0,
          'every record is final',
        )
        for (const h of hashes)
          assert.equal(
            rows.filter((r) => r.intent_hash === h && r.state === 'mined').length,
            1,
            `one executed record for ${h}`,
          )
      }
      assert.deepEqual({ lost: totals.lost, duplicated: totals.duplicated }, { lost: 0, duplicated: 0 })
      console.log(`# kill -9 faults: ${JSON.stringify(totals)}`)
    } finally {
      running?.child.kill('SIGKILL')
      await devnet.stop()
    }
  })

  it('SIGTERM lets executes in flight reach their receipt, refuses new work, and exits 0; past the bound it cuts them and the journal finishes them at the next start', async () => {
    const devnet = await startDevnet() // automine while deploying, then a block every 2 s
    await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [2])
    const chain = chainView(devnet)
    const journalPath = join(dir, 'term', 'journal.sqlite')
    const env = {
      ...chainEnv(devnet),
      JOURNAL_PATH: journalPath,
      RECEIPT_TIMEOUT_MS: '20000',
      SHUTDOWN_TIMEOUT_MS: '15000',
    }
    let running: GatewayProcess | undefined
    try {
      // Within the bound: each in-flight execute gets its receipt and answer.
      let { gw, baseUrl } = await startGatewayProcess(env)
      running = gw
      // Blocks stop until the SIGTERM, so the three are surely in the pool when it comes (sent
      // together, they could otherwise mine between two looks at the pool).
      await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [0])
      const inFlight = [1, 2, 3].map(async (i) =>
        post(baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: String(2000 + i) }), chainHeader),
      )
      await eventually('transactions in the pool', 20_000, async () =>
        (await chain.unmined()) >= 3 ? true : undefined,
      )
      gw.child.kill('SIGTERM')
      await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [2])
      await sleep(200)
      const late = await post(baseUrl, '/intents/validate', demoIntent(devnet, { nonce: '2999' }), chainHeader).catch(
        () => undefined,
      )
      assert.ok(!late || late.status === 503, 'no new work once shutting down')
      const answers = await Promise.all(inFlight)
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200],
      )
      assert.equal(await gw.exit, 0)
      running = undefined
      assert.deepEqual(tally(journalRows(journalPath)), { mined: 3 })

      // SIGUSR2 writes a consistent copy of the journal beside it while the gateway runs.
      ;({ gw, baseUrl } = await startGatewayProcess(env))
      running = gw
      gw.child.kill('SIGUSR2')
      const backupName = /^journal-.*\.sqlite$/
      await waitFor(
        () => readdirSync(dirname(journalPath)).some((f) => backupName.test(f)),
        10_000,
        'the journal backup',
      )
      await waitFor(() => gw.stdout().includes('journal backed up'), 10_000, 'the backup log line')
      const backup = join(dirname(journalPath), readdirSync(dirname(journalPath)).find((f) => backupName.test(f))!)
      assert.deepEqual(tally(journalRows(backup)), { mined: 3 })
      gw.child.kill('SIGTERM')
      assert.equal(await gw.exit, 0)
      running = undefined

      // Past the bound: automine off, so the receipt never comes while the gateway waits.
      await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [0])
      ;({ gw, baseUrl } = await startGatewayProcess({ ...env, SHUTDOWN_TIMEOUT_MS: '300' }))
      running = gw
      const cut = post(baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '2010' }), chainHeader).catch(
        () => undefined,
      )
      await eventually('the transaction in the pool', 20_000, async () =>
        (await chain.unmined()) >= 1 ? true : undefined,
      )
      gw.child.kill('SIGTERM')
      assert.equal(await gw.exit, 0)
      running = undefined
      assert.equal(await cut, undefined, 'the open request was cut')
      const rows = journalRows(journalPath)
      assert.equal(rows.at(-1)?.state, 'pending')
      assert.ok(rows.at(-1)?.tx_bytes, 'with its signed transaction')

      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
      ;({ gw, baseUrl } = await startGatewayProcess(env))
      running = gw
      const settled = await finalState(baseUrl, rows.at(-1)!.intent_hash)
      assert.equal(settled.status, 200)
      assert.equal(settled.body.state, 'mined')
      gw.child.kill('SIGTERM')
      assert.equal(await gw.exit, 0)
      running = undefined
    } finally {
      running?.child.kill('SIGKILL')
      await devnet.stop()
    }
  })
})
