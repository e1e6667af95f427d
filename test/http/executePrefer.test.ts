// POST /intents/execute with RFC 7240's Prefer on anvil: `respond-async` answers 202 (0xF3) with
// Location as soon as the node has the transaction, `wait=N` after at most N seconds; the execution
// is then delivered as after any 202, exactly once; a refusal is answered at once as without it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { encodeFunctionData, parseEther } from 'viem'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { demoReads } from '../support/demoReads.ts'
import { demoIntent, post, request, rpc, signIntent, startWorld, type World } from '../support/testGateway.ts'

describe('POST /intents/execute with Prefer (RFC 7240)', () => {
  let world: World
  const execute = async (body: Record<string, unknown>, prefer?: string) =>
    post(world.gateway.baseUrl, '/intents/execute', await signIntent(world.devnet, body), {
      'x-chain-id': '31337',
      ...(prefer ? { prefer } : {}),
    })
  const { readCount, relayerNonce, nonceUsed } = demoReads(() => world)
  /** The Location polled until it answers something else than 202. */
  const settled = async (location: string) => {
    for (let i = 0; i < 200; i++) {
      const res = await request(world.gateway.baseUrl, location)
      if (res.status !== 202) return res
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error(`${location} still answers 202`)
  }
  const withoutMining = async <T>(f: () => Promise<T>): Promise<T> => {
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      return await f()
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
  }

  before(async () => {
    // The gateway's own bound on the wait is a minute: every 202 below is the preference's.
    world = await startWorld({ receiptTimeoutMs: 60_000 })
  })
  after(async () => {
    await world?.stop()
  })

  it('respond-async: 202 0xF3 with Location and Preference-Applied once the node holds the transaction; it runs once, and a repeat answers its outcome', async () => {
    const count = await readCount()
    const res = await withoutMining(async () => {
      const started = performance.now()
      const res = await execute(demoIntent(world.devnet, { nonce: '101' }), 'respond-async')
      assert.ok(performance.now() - started < 30_000, 'answered without waiting for a block')
      assert.equal(res.status, 202)
      assertCommonHeaders(res, { status: '0xF3' })
      assert.equal(res.headers.get('preference-applied'), 'respond-async')
      assert.equal(res.headers.get('location'), `/intents/${res.headers.get('x-intent-hash')}`)
      assert.equal(res.body.state, 'pending')
      assert.match(res.body.detail, /answered at once as the request preferred/)
      // The node has it, unmined.
      const tx = await rpc(world.devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [res.body.transactionHash])
      assert.ok(tx, 'the transaction is in the node')
      assert.equal((tx as { blockNumber: unknown }).blockNumber, null)
      assert.equal(await nonceUsed(101n), false)
      return res
    })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
    const done = await settled(res.headers.get('location')!)
    assert.equal(done.status, 200)
    assert.equal(done.body.state, 'mined')
    assert.equal(done.body.transactionHash, res.body.transactionHash)
    assert.equal(await nonceUsed(101n), true)
    assert.equal(await readCount(), count + 1n)

    // A repeat answers the one outcome, sending nothing: no preference applies to a replay.
    const nonce = await relayerNonce()
    const again = await execute(demoIntent(world.devnet, { nonce: '101' }), 'respond-async')
    assert.equal(again.status, 200)
    assertCommonHeaders(again, { status: '0x11' })
    assert.equal(again.body.replayed, true)
    assert.equal(again.headers.get('preference-applied'), null)
    assert.equal(await relayerNonce(), nonce)
    assert.equal(await readCount(), count + 1n)
  })

  it('wait=1: waits a second for the receipt, then answers 202 with Preference-Applied; a receipt within the wait answers 200 as without it', async () => {
    const late = await withoutMining(async () => {
      const started = performance.now()
      const res = await execute(demoIntent(world.devnet, { nonce: '102' }), 'wait=1')
      const took = performance.now() - started
      assert.equal(res.status, 202)
      assertCommonHeaders(res, { status: '0xF3' })
      assert.equal(res.headers.get('preference-applied'), 'wait=1')
      assert.match(res.body.detail, /not mined within 1000 ms/)
      assert.ok(took >= 1_000 && took < 30_000, `answered after ${took} ms`)
      return res
    })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
    assert.equal((await settled(late.headers.get('location')!)).body.state, 'mined')

    const mined = await execute(demoIntent(world.devnet, { nonce: '103' }), 'respond-async, wait=30')
    assert.equal(mined.status, 200)
    assertCommonHeaders(mined, { status: '0x11' })
    assert.equal(mined.headers.get('preference-applied'), null)
    assert.equal(mined.body.state, 'mined')
  })

  it('answers a refusal at once as without it, sending nothing (a 202 0x20 too, without Preference-Applied)', async () => {
    const nonce = await relayerNonce()
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'fail', args: ['x'] }) }, 403, '0x10'],
      [{ value: parseEther('5').toString() }, 402, '0x54'],
      [{ validAfter: '4102444800' }, 202, '0x20'],
    ]
    for (const [overrides, status, code] of cases) {
      const res = await execute(demoIntent(world.devnet, { nonce: '104', ...overrides }), 'respond-async')
      assert.equal(res.status, status, JSON.stringify(overrides))
      assertCommonHeaders(res, { status: code })
      assert.equal(res.headers.get('preference-applied'), null)
      assert.equal(res.body.transactionHash, undefined)
    }
    assert.equal(await relayerNonce(), nonce)
    assert.equal(await nonceUsed(104n), false)
  })

  it('ignores preferences it does not understand (RFC 7240 §2): answered once mined, 200, without Preference-Applied', async () => {
    const res = await execute(demoIntent(world.devnet, { nonce: '105' }), 'wait=soon, handling=strict, return=minimal')
    assert.equal(res.status, 200)
    assertCommonHeaders(res, { status: '0x11' })
    assert.equal(res.headers.get('preference-applied'), null)
    assert.equal(res.body.state, 'mined')
  })
})
