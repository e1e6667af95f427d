// The folded validator reads against a real anvil: answers identical to one eth_call each, a
// reverted call answering only its own request, and the paths without Multicall3.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pino from 'pino'
import { type Address, type Hex, HttpRequestError } from 'viem'
import { validatorReads } from '../../../test/support/validatorReads.ts'
import { createJsonRpcClient } from '../createJsonRpcClient.ts'
import { createCallBatcher, multicall3Address } from './createCallBatcher.ts'
import { createDevClients } from './devnet/deployContracts.ts'
import { deployMulticall3 } from './devnet/deployMulticall3.ts'
import { type Devnet, startDevnet } from './devnet/startDevnet.ts'

const logger = pino({ level: 'silent' })

describe('createCallBatcher', () => {
  let devnet: Devnet
  let rpc: ReturnType<typeof createJsonRpcClient>
  /** Every request the batcher made, by method (eth_call split by target). */
  let sent: string[]
  const request = (args: { method: string; params?: unknown }) => {
    const to =
      args.method === 'eth_call'
        ? (args.params as [{ to: Address }])[0].to.toLowerCase() === multicall3Address.toLowerCase()
          ? ':multicall3'
          : ':single'
        : ''
    sent.push(`${args.method}${to}`)
    return rpc.request(args)
  }
  const { canExecute, reverting, direct, settled } = validatorReads(
    () => devnet,
    () => rpc,
  )

  before(async () => {
    devnet = await startDevnet()
    rpc = createJsonRpcClient({ url: devnet.anvil.rpcUrl, timeoutMs: 10_000 })
  })
  after(async () => {
    await rpc?.close()
    await devnet?.stop()
  })

  it('folds the reads of one turn into one aggregate3 call, each answered as its own eth_call would be', async () => {
    const batcher = createCallBatcher({ request, logger, spread: 1, foldAt: 1000 })
    sent = []
    await batcher.call(canExecute(1)) // finds Multicall3
    assert.equal(batcher.folding(), true)
    sent = []
    const calls = [...Array.from({ length: 20 }, (_, i) => canExecute(100 + i)), reverting(), canExecute(7)]
    const folded = await Promise.all(calls.map((c) => settled(batcher.call(c))))
    assert.deepEqual(folded, await Promise.all(calls.map(direct)))
    assert.ok(
      'err' in folded[20]! && /revert/i.test(folded[20].err),
      `the reverted call fails alone: ${JSON.stringify(folded[20])}`,
    )
    assert.ok(folded.filter((r) => 'ok' in r).length === 21)
    // Two different verdicts among them (an open policy and an unknown one): not one answer copied.
    assert.equal(new Set(folded.filter((r) => 'ok' in r).map((r) => (r as { ok: Hex }).ok)).size, 2)
    assert.deepEqual(sent.sort(), ['eth_call:multicall3', 'eth_call:single'])
  })

  it('splits a turn into aggregates of at most maxCalls, and over `spread` aggregates', async () => {
    const capped = createCallBatcher({ request, logger, maxCalls: 8, spread: 1, foldAt: 1000 })
    await capped.call(canExecute(1))
    sent = []
    const calls = Array.from({ length: 20 }, (_, i) => canExecute(300 + i))
    assert.deepEqual(await Promise.all(calls.map((c) => settled(capped.call(c)))), await Promise.all(calls.map(direct)))
    assert.deepEqual(sent, ['eth_call:multicall3', 'eth_call:multicall3', 'eth_call:multicall3'])
    const spread = createCallBatcher({ request, logger, spread: 4, foldAt: 1000 })
    await spread.call(canExecute(1))
    sent = []
    assert.deepEqual(await Promise.all(calls.map((c) => settled(spread.call(c)))), await Promise.all(calls.map(direct)))
    assert.deepEqual(sent, Array(4).fill('eth_call:multicall3'))
  })

  it('folds and sends every foldAt reads at once, the rest at the end of the turn', async () => {
    const batcher = createCallBatcher({ request, logger, foldAt: 8, spread: 1 })
    await batcher.call(canExecute(1))
    const calls = Array.from({ length: 20 }, (_, i) => canExecute(700 + i))
    sent = []
    const pending = calls.map((c) => settled(batcher.call(c)))
    // Two full groups left before the turn ended; the last 4 wait for it.
    assert.deepEqual(sent, ['eth_call:multicall3', 'eth_call:multicall3'])
    assert.deepEqual(await Promise.all(pending), await Promise.all(calls.map(direct)))
    assert.deepEqual(sent, Array(3).fill('eth_call:multicall3'))
  })

  it('folds the reads of one turn per block: those pinned to a block hash read that block, the others the latest', async () => {
    const batcher = createCallBatcher({ request, logger, spread: 1, foldAt: 1000 })
    await batcher.call(canExecute(1))
    const head = (await rpc.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
      hash: Hex
      timestamp: Hex
    }
    // Executable from 100 s after this block: too early here, executable in the next block, 200 s later.
    const later = canExecute(801, BigInt(head.timestamp) + 100n)
    await rpc.request({ method: 'evm_increaseTime', params: [200] })
    await rpc.request({ method: 'evm_mine', params: [] })
    sent = []
    const [old1, old2, now1, now2] = await Promise.all([
      batcher.call({ ...later, at: head.hash }),
      batcher.call({ ...canExecute(803), at: head.hash }),
      batcher.call(later),
      batcher.call(canExecute(803)),
    ])
    const at = (block: unknown) => (c: { to: Address; data: Hex }) =>
      rpc.request({ method: 'eth_call', params: [c, block] })
    assert.deepEqual([old1, old2], await Promise.all([later, canExecute(803)].map(at({ blockHash: head.hash }))))
    assert.deepEqual([now1, now2], await Promise.all([later, canExecute(803)].map(at('latest'))))
    assert.notEqual(old1, now1, 'too early at the pinned block, executable at the latest')
    assert.deepEqual(sent, ['eth_call:multicall3', 'eth_call:multicall3'], 'one aggregate per block')
  })

  it('sends each call alone on a chain without Multicall3, and when MULTICALL is off', async () => {
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const snapshot = await publicClient.request({ method: 'evm_snapshot' as never })
    try {
      await publicClient.request({ method: 'anvil_setCode' as never, params: [multicall3Address, '0x'] as never })
      const batcher = createCallBatcher({ request, logger })
      sent = []
      await batcher.call(canExecute(1))
      assert.equal(batcher.folding(), false)
      sent = []
      const calls = Array.from({ length: 5 }, (_, i) => canExecute(400 + i))
      assert.deepEqual(
        await Promise.all(calls.map((c) => settled(batcher.call(c)))),
        await Promise.all(calls.map(direct)),
      )
      assert.deepEqual(sent, Array(5).fill('eth_call:single'))
    } finally {
      await publicClient.request({ method: 'evm_revert' as never, params: [snapshot] as never })
    }
    const off = createCallBatcher({ request, logger, enabled: false })
    sent = []
    await Promise.all([off.call(canExecute(1)), off.call(canExecute(2))])
    assert.deepEqual(sent, ['eth_call:single', 'eth_call:single'])
    assert.equal(off.folding(), false)
  })

  it('answers every call right when Multicall3 disappears while folding, and stops folding', async () => {
    const batcher = createCallBatcher({ request, logger })
    await batcher.call(canExecute(1))
    assert.equal(batcher.folding(), true)
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    await publicClient.request({ method: 'anvil_setCode' as never, params: [multicall3Address, '0x'] as never })
    try {
      const calls = Array.from({ length: 6 }, (_, i) => canExecute(500 + i))
      assert.deepEqual(
        await Promise.all(calls.map((c) => settled(batcher.call(c)))),
        await Promise.all(calls.map(direct)),
      )
      await new Promise((r) => setTimeout(r, 200))
      assert.equal(batcher.folding(), false)
    } finally {
      await deployMulticall3({ rpcUrl: devnet.anvil.rpcUrl, chainId: devnet.anvil.chainId })
    }
  })

  it('fails every folded call at once with the transport error when the node cannot be reached', async () => {
    let reachable = true
    let attempts = 0
    const flaky = (args: { method: string; params?: unknown }) => {
      if (reachable) return rpc.request(args)
      attempts++
      return Promise.reject(new HttpRequestError({ url: 'http://127.0.0.1:1', details: 'connect ECONNREFUSED' }))
    }
    const batcher = createCallBatcher({ request: flaky, logger, spread: 1 })
    await batcher.call(canExecute(1))
    reachable = false
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => settled(batcher.call(canExecute(600 + i)))))
    assert.ok(
      results.every((r) => 'err' in r && /ECONNREFUSED/.test(r.err)),
      JSON.stringify(results),
    )
    assert.equal(attempts, 1, 'one aggregate attempt, not one more per call')
    assert.equal(batcher.folding(), true)
  })
})
