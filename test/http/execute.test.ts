// POST /intents/execute against the real contracts on anvil: the transaction lands once, the
// header hash is the event's hash, refused intents send nothing, a repeat answers the intent's one
// outcome (replayed), and a different intent reusing a used (sender, nonce) gets 409.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { decodeEventLog, encodeFunctionData, type Hex, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { evmRuntime } from '../../src/chains/evm/evmRuntime.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { demoReads } from '../support/demoReads.ts'
import { parseMetrics, valueOf } from '../support/parseMetrics.ts'
import {
  demoIntent,
  post,
  request,
  rpc,
  signIntent,
  startTestGateway,
  startWorld,
  type World,
} from '../support/testGateway.ts'

const relayer = privateKeyToAccount(devnetAccounts.relayer).address

describe('POST /intents/execute', () => {
  let world: World
  // Every execute here is signed by the demo sender; test/evm/signedIntents.test.ts covers the rest.
  const execute = async (body: Record<string, unknown>, baseUrl = world.gateway.baseUrl) =>
    post(baseUrl, '/intents/execute', await signIntent(world.devnet, body), { 'x-chain-id': '31337' })
  const { readCount, relayerNonce, nonceUsed } = demoReads(() => world)

  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    await world?.stop()
  })
  // No snapshot/revert here: reverting would rewind the relayer's account nonce behind the
  // relayer's own counter. Each test uses its own intent nonces and measures deltas instead.
  let countBefore: bigint
  beforeEach(async () => {
    countBefore = await readCount()
  })

  it('executes on-chain and reports the transaction; X-Intent-Hash is the hash in IntentExecuted', async () => {
    const res = await execute(demoIntent(world.devnet, { nonce: '1', value: parseEther('0.5').toString() }))
    assert.equal(res.status, 200)
    assertCommonHeaders(res, { status: '0x11' })
    assert.equal(res.body.status, '0x11')
    assert.equal(res.body.statusName, 'EXECUTED')
    assert.equal(res.body.state, 'mined')
    assert.match(res.body.transactionHash, /^0x[0-9a-f]{64}$/)

    const receipt = await world.clients.publicClient.getTransactionReceipt({ hash: res.body.transactionHash })
    assert.equal(receipt.status, 'success')
    assert.equal(receipt.from.toLowerCase(), relayer.toLowerCase())
    assert.equal(res.body.blockNumber, receipt.blockNumber.toString())
    assert.equal(res.body.gasUsed, receipt.gasUsed.toString())
    const event = receipt.logs
      .map((l) => {
        try {
          return decodeEventLog({ abi: intentExecutorArtifact.abi, data: l.data, topics: l.topics })
        } catch {
          return undefined
        }
      })
      .find((e) => e?.eventName === 'IntentExecuted')
    assert.ok(event && event.eventName === 'IntentExecuted')
    assert.equal(event.args.intentHash, res.headers.get('x-intent-hash'))
    assert.equal(event.args.status, '0x11')
    assert.equal(event.args.returnData, res.body.returnData)
    assert.equal(await readCount(), countBefore + 1n)
    const received = await world.clients.publicClient.readContract({
      address: world.devnet.contracts.counter,
      abi: demoCounterArtifact.abi,
      functionName: 'received',
    })
    assert.equal(received, parseEther('0.5'))

    const polled = await request(world.gateway.baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)
    assert.equal(polled.status, 200)
    assertCommonHeaders(polled, { status: '0x11', intentHash: res.headers.get('x-intent-hash')! })
    assert.equal(polled.body.transactionHash, res.body.transactionHash)
  })

  it('sends nothing for an intent the validator refuses, and answers as validate would', async () => {
    const before = await relayerNonce()
    const block = await world.clients.publicClient.getBlockNumber()
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'fail', args: ['x'] }) }, 403, '0x10'],
      [{ value: parseEther('5').toString() }, 402, '0x54'],
      [{ validBefore: '1' }, 410, '0x21'],
      [{ validAfter: '4102444800' }, 202, '0x20'],
      [{ policyId: world.devnet.demo.policies.mainnetOnly }, 421, '0xA2'],
    ]
    for (const [overrides, status, code] of cases) {
      const res = await execute(demoIntent(world.devnet, { nonce: '2', ...overrides }))
      assert.equal(res.status, status, JSON.stringify(overrides))
      assertCommonHeaders(res, { status: code })
      assert.equal(res.body.transactionHash, undefined)
    }
    assert.equal(await relayerNonce(), before)
    assert.equal(await world.clients.publicClient.getBlockNumber(), block)
    assert.equal(await nonceUsed(2n), false)
  })

  it('never executes the same intent twice: a repeat replays its outcome (200 0x11, replayed), another intent on the same nonce answers 409 NONCE_USED (0x22)', async () => {
    const body = demoIntent(world.devnet, { nonce: '3' })
    const first = await execute(body)
    assert.equal(first.status, 200)
    const nonceAfterFirst = await relayerNonce()

    const replay = await execute(body)
    assert.equal(replay.status, 200)
    assertCommonHeaders(replay, { status: '0x11' })
    assert.equal(replay.body.replayed, true)
    assert.equal(replay.body.detail, 'this intent was executed already (replayed: nothing was sent or charged again)')
    assert.equal(replay.body.transactionHash, first.body.transactionHash)
    assert.equal(replay.body.blockNumber, first.body.blockNumber)
    assert.equal(replay.body.state, 'mined')
    assert.equal(await relayerNonce(), nonceAfterFirst, 'the replay sent nothing')

    // Same (sender, nonce), different call: the contract and the gateway both refuse it.
    const sameNonce = await execute(
      demoIntent(world.devnet, {
        nonce: '3',
        data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [5n] }),
      }),
    )
    assert.equal(sameNonce.status, 409)
    assertCommonHeaders(sameNonce, { status: '0x22' })
    assert.equal(await relayerNonce(), nonceAfterFirst)
    assert.equal(await readCount(), countBefore + 1n)
  })

  it('executes many distinct intents sent at once, each exactly once, with no nonce errors', async () => {
    const n = 40
    const bodies = Array.from({ length: n }, (_, i) => demoIntent(world.devnet, { nonce: String(1000 + i) }))
    const before = await relayerNonce()
    const results = await Promise.all(bodies.map((b) => execute(b)))
    const statuses = results.map((r) => r.status)
    if (statuses.some((s) => s !== 200)) {
      // CI runs 63 and 89 saw one answer 202 here, not reproduced since: whether the chain mined
      // it (the watch missed its block) or not (it was never in the pool), and what was logged.
      const { publicClient } = world.clients
      const onChain = await Promise.all(
        results
          .filter((r) => r.status !== 200)
          .map(async (r) => {
            const hash = r.body.transactionHash as Hex | undefined
            const receipt = hash && (await publicClient.getTransactionReceipt({ hash }).catch(() => undefined))
            return {
              answer: r.text,
              onChain: receipt ? `block ${receipt.blockNumber}, ${receipt.status}` : 'no receipt',
            }
          }),
      )
      const head = await publicClient.getBlockNumber()
      const logged = world.gateway.logs.filter((l) => /"level":(40|50|60)/.test(l))
      assert.fail(JSON.stringify({ statuses, onChain, head: String(head), logged }, null, 1))
    }
    assert.equal(new Set(results.map((r) => r.body.transactionHash)).size, n)
    assert.equal(await readCount(), countBefore + BigInt(n))
    assert.equal(await relayerNonce(), before + n)
    for (let i = 0; i < n; i++) assert.equal(await nonceUsed(BigInt(1000 + i)), true)
    assert.deepEqual(
      world.gateway.logs.filter((l) => /nonce/i.test(l) && /"level":(40|50)/.test(l)),
      [],
      'no nonce warnings or errors were logged',
    )
  })

  it("logs each execute's steps, from its request to the node's answer to its broadcast, within the request's own time", async () => {
    const n = 8
    const timed = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const body = await signIntent(world.devnet, demoIntent(world.devnet, { nonce: String(2000 + i) }))
        const start = performance.now()
        const res = await post(world.gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': '31337' })
        return { res, ms: performance.now() - start }
      }),
    )
    for (const { res, ms } of timed) {
      assert.equal(res.status, 200, res.text)
      const line = world.gateway.logs.find(
        (l) => l.includes('"execute sent"') && l.includes(res.body.transactionHash as string),
      )
      assert.ok(line, `an 'execute sent' line for ${res.body.transactionHash}`)
      const steps = (JSON.parse(line) as { steps: Record<string, number> }).steps
      assert.deepEqual(Object.keys(steps), ['intake', 'batching', 'simulation', 'turn', 'signing', 'broadcast'])
      for (const [name, value] of Object.entries(steps)) assert.ok(value >= 0, `${name}: ${value}`)
      const sum = Object.values(steps).reduce((a, b) => a + b, 0)
      // Each step rounds to 0.1 ms; the request took longer than its way to the broadcast.
      assert.ok(sum <= ms + 0.6, `the steps (${sum} ms) within the request (${ms.toFixed(1)} ms)`)
    }
  })

  it('lets one of many identical concurrent executes through; the rest replay it (202 0xF3 in flight, or 200 0x11 once mined)', async () => {
    const body = demoIntent(world.devnet, { nonce: '5' })
    const before = await relayerNonce()
    const results = await Promise.all(Array.from({ length: 8 }, () => execute(body)))
    assert.equal(
      results.filter((r) => r.status === 200 && !r.body.replayed).length,
      1,
      results.map((r) => r.text).join('\n'),
    )
    for (const r of results.filter((r) => r.body.replayed)) {
      assert.ok(
        (r.status === 202 &&
          r.headers.get('x-erc1066-status') === '0xF3' &&
          r.headers.get('location') === `/intents/${r.headers.get('x-intent-hash')}`) ||
          (r.status === 200 && r.headers.get('x-erc1066-status') === '0x11'),
        r.text,
      )
    }
    assert.equal(results.filter((r) => r.body.replayed).length, 7)
    assert.equal(await relayerNonce(), before + 1, 'one transaction')
    assert.equal(await readCount(), countBefore + 1n)
  })

  it('answers a repeat 503 0x40 claim-held with Retry-After, never 202, when the claim it meets still sent nothing after the wait; the retry runs once the claim is given back', async () => {
    // The wait is never longer than the receipt timeout: 1.5 s here, 10 s by default.
    const held = await startTestGateway({ chains: [world.devnet.chain], receiptTimeoutMs: 1_500 })
    try {
      const body = await signIntent(world.devnet, demoIntent(world.devnet, { nonce: '11' }))
      const intentHash = evmRuntime.hashIntent(parseIntent(body as never, evmRuntime))
      // A request caught between its claim and its signature (its payment settles), or one whose
      // gateway died there: no transaction exists, whatever a 202 would say.
      const claim = await held.journal.claim({
        chainId: world.devnet.chain.chainId,
        intentHash,
        intent: parseIntent(body as never, evmRuntime),
      })
      assert.ok(claim.ok)
      const before = await relayerNonce()
      const started = performance.now()
      const repeat = await post(held.baseUrl, '/intents/execute', body, { 'x-chain-id': '31337' })
      assert.equal(repeat.status, 503, repeat.text)
      assertCommonHeaders(repeat, { status: '0x40' })
      assert.equal(repeat.headers.get('retry-after'), '2')
      assert.equal(repeat.headers.get('location'), null)
      assert.equal(repeat.body.type, 'urn:intent-gateway:problem:claim-held')
      assert.equal(repeat.body.replayed, undefined)
      assert.match(repeat.body.detail, /has sent nothing yet.*retry after 2 s/)
      assert.ok(performance.now() - started >= 1_400, 'it waited for the claim first')
      assert.equal((await held.journal.get(intentHash, world.devnet.chain.chainId))?.state, 'claimed')
      assert.equal(await relayerNonce(), before, 'nothing sent')
      assert.equal(await nonceUsed(11n), false)

      // A claim given back during the wait (its request was refused): the repeat runs it itself.
      const waiting = post(held.baseUrl, '/intents/execute', body, { 'x-chain-id': '31337' })
      await new Promise((r) => setTimeout(r, 300))
      await held.journal.release(claim.record)
      const ran = await waiting
      assert.equal(ran.status, 200, ran.text)
      assert.equal(ran.body.replayed, undefined)
      assert.equal(await nonceUsed(11n), true)
      assert.equal(await relayerNonce(), before + 1)
    } finally {
      await held.close()
    }
  })

  it('answers 422 (0x50) when the target call reverts on-chain, and spends nothing', async () => {
    const { writePolicy } = await import('../support/policies.ts')
    const id = await writePolicy(world, 'any call', {})
    const before = await relayerNonce()
    const res = await execute(
      demoIntent(world.devnet, {
        nonce: '6',
        policyId: id,
        data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'fail', args: ['nope'] }),
      }),
    )
    assert.equal(res.status, 422)
    assertCommonHeaders(res, { status: '0x50' })
    assert.match(res.body.detail, /^the target call reverted with data 0x/)
    assert.equal(await relayerNonce(), before, 'the simulation caught it: nothing was sent')
    assert.equal(await nonceUsed(6n), false)
  })

  it('answers 202 (0xF3) with Location when the receipt is late, then the Location reports the result', async () => {
    const slow = await startTestGateway({ chains: [world.devnet.chain], receiptTimeoutMs: 300 })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const res = await execute(demoIntent(world.devnet, { nonce: '7' }), slow.baseUrl)
      assert.equal(res.status, 202)
      assertCommonHeaders(res, { status: '0xF3' })
      const location = res.headers.get('location')
      assert.equal(location, `/intents/${res.headers.get('x-intent-hash')}`)
      assert.equal(res.body.state, 'pending')

      const pending = await request(slow.baseUrl, location!)
      assert.equal(pending.status, 202)
      assert.equal(pending.body.state, 'pending')

      const again = await execute(demoIntent(world.devnet, { nonce: '7' }), slow.baseUrl)
      assert.equal(again.status, 202)
      assertCommonHeaders(again, { status: '0xF3' })
      assert.equal(again.body.replayed, true)
      assert.equal(again.headers.get('location'), location)

      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      let done
      for (let i = 0; i < 100; i++) {
        done = await request(slow.baseUrl, location!)
        if (done.status !== 202) break
        await new Promise((r) => setTimeout(r, 20))
      }
      assert.equal(done!.status, 200)
      assert.equal(done!.body.state, 'mined')
      assert.equal(done!.body.transactionHash, res.body.transactionHash)
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await slow.close()
    }
  })

  it('decodes an on-chain revert from its receipt: two gateways racing on one (sender, nonce) execute it once', async () => {
    // Two gateway processes with their own relayers: their stores cannot see each other, only the
    // chain can. Each simulates at the pending state, so the race is made certain: both broadcasts
    // are held at a proxy until both gateways have simulated and sent, then let through together.
    const barrier = await startBroadcastBarrier(world.devnet.anvil.rpcUrl, 2)
    const chain = { ...world.devnet.chain, rpcUrls: [barrier.url] }
    const ours = await startTestGateway({ chains: [chain] })
    const rival = await startTestGateway({ chains: [chain], relayerPrivateKey: devnetAccounts.other })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const a = execute(demoIntent(world.devnet, { nonce: '10' }), ours.baseUrl)
      const b = execute(
        demoIntent(world.devnet, {
          nonce: '10',
          data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [2n] }),
        }),
        rival.baseUrl,
      )
      // Both passed simulation against the same state and sent; wait until both are in the pool.
      for (let i = 0; i < 250 && Number((await rpc(world.devnet.anvil.rpcUrl, 'txpool_status', [])).pending) < 2; i++)
        await new Promise((r) => setTimeout(r, 20))
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      const results = await Promise.all([a, b])
      const statuses = results.map((r) => r.status).sort()
      assert.deepEqual(
        statuses,
        [200, 409],
        results.map((r) => r.text).join('\n') +
          [...rival.logs, ...ours.logs].filter((l) => /"level":(40|50)/.test(l)).join('\n'),
      )
      const loser = results.find((r) => r.status === 409)!
      assertCommonHeaders(loser, { status: '0x22' })
      assert.equal(loser.body.state, 'reverted')
      assert.equal(loser.body.detail, 'the executor refused the intent')
      const receipt = await world.clients.publicClient.getTransactionReceipt({ hash: loser.body.transactionHash })
      assert.equal(receipt.status, 'reverted')
      assert.ok((await readCount()) - countBefore === 1n || (await readCount()) - countBefore === 2n)
      assert.equal(await nonceUsed(10n), true)
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await Promise.all([ours.close(), rival.close()])
      barrier.close()
    }
  })

  it('recovers when another process used the relayer key: re-reads the nonce and sends once', async () => {
    await execute(demoIntent(world.devnet, { nonce: '11' })) // the gateway now counts the relayer nonce itself
    const wallet = world.clients.walletFor(devnetAccounts.relayer)
    const hash = await wallet.sendTransaction({ to: relayer, value: 0n, account: wallet.account!, chain: wallet.chain })
    await world.clients.publicClient.waitForTransactionReceipt({ hash })
    const before = await relayerNonce()
    const res = await execute(demoIntent(world.devnet, { nonce: '12' }))
    assert.equal(res.status, 200, res.text)
    assert.equal(await relayerNonce(), before + 1)
    assert.ok(world.gateway.logs.some((l) => l.includes('relayer nonce was behind the node')))
    // The refused first signature is not waited for: with nothing in flight the receipt watch stops
    // reading the head (a wait left behind kept it polling the node for ever).
    const headReads = async () =>
      valueOf(
        parseMetrics((await request(world.gateway.baseUrl, '/metrics')).text),
        'intent_gateway_chain_rpc_duration_seconds_count',
        {
          chain: 'eip155:31337',
          method: 'eth_blockNumber',
        },
      ) ?? 0
    await new Promise((r) => setTimeout(r, 500))
    const idle = await headReads()
    await new Promise((r) => setTimeout(r, 1_500))
    assert.equal(await headReads(), idle, 'no head reads while nothing is waited for')
  })

  it('answers 501 (0xA1) when no relayer is configured, after sending nothing', async () => {
    const readOnly = await startTestGateway({ chains: [world.devnet.chain], relayerPrivateKey: undefined })
    try {
      const res = await execute(demoIntent(world.devnet, { nonce: '8' }), readOnly.baseUrl)
      assert.equal(res.status, 501)
      assertCommonHeaders(res, { status: '0xA1' })
      assert.match(res.body.detail, /no relayer is configured for chain eip155:31337/)
      assert.equal((await post(readOnly.baseUrl, '/intents/validate', demoIntent(world.devnet))).status, 200)
    } finally {
      await readOnly.close()
    }
  })

  it('answers 502 (0xF0) naming the problem when the relayer cannot pay for gas, and recovers after funding', async () => {
    const poorKey = `0x${'11'.repeat(32)}` as Hex
    const poor = await startTestGateway({ chains: [world.devnet.chain], relayerPrivateKey: poorKey })
    try {
      const res = await execute(demoIntent(world.devnet, { nonce: '9' }), poor.baseUrl)
      assert.equal(res.status, 502)
      assertCommonHeaders(res, { status: '0xF0' })
      assert.ok(!res.text.includes(poorKey.slice(2)), 'the key never appears in a response')
      assert.equal(await readCount(), countBefore)
      await rpc(world.devnet.anvil.rpcUrl, 'anvil_setBalance', [
        privateKeyToAccount(poorKey).address,
        '0xDE0B6B3A7640000',
      ])
      const retry = await execute(demoIntent(world.devnet, { nonce: '9' }), poor.baseUrl)
      assert.equal(retry.status, 200, retry.text)
    } finally {
      await poor.close()
    }
  })

  it('answers 404 for an intent this gateway never executed, and 400 for a malformed hash', async () => {
    const unknown = await request(world.gateway.baseUrl, `/intents/0x${'12'.repeat(32)}`)
    assert.equal(unknown.status, 404)
    assertCommonHeaders(unknown, { status: '0xA0', intentHash: `0x${'12'.repeat(32)}` })
    assert.deepEqual(unknown.body.errors, [
      { field: 'intentHash', message: 'no execution of this intent was sent by this gateway' },
    ])
    const malformed = await request(world.gateway.baseUrl, '/intents/0x1234')
    assert.equal(malformed.status, 400)
    assert.equal(malformed.body.errors[0].field, 'intentHash')
  })
})

/**
 * A JSON-RPC proxy in front of a node that holds eth_sendRawTransaction requests until `count` of
 * them have arrived (or 10 s passed), then forwards them together; everything else passes at once.
 */
async function startBroadcastBarrier(target: string, count: number): Promise<{ url: string; close(): void }> {
  const { createServer } = await import('node:http')
  const waiting: (() => void)[] = []
  const release = () => waiting.splice(0).forEach((go) => go())
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString()
      if (body.includes('"eth_sendRawTransaction"')) {
        await new Promise<void>((go) => {
          waiting.push(go)
          if (waiting.length >= count) release()
          else setTimeout(release, 10_000).unref()
        })
      }
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text())
    })
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() }
}
