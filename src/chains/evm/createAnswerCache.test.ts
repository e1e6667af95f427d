// The per-block answer cache against a real anvil: the same answers as a plain eth_call, the node
// asked once per call per block, and never an answer of another block (a new block, or another
// block at the same height after a reorg).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pino from 'pino'
import { type Address, type Hex, HttpRequestError } from 'viem'
import { validatorReads } from '../../../test/support/validatorReads.ts'
import { Status } from '../../status/statusCodes.ts'
import { createJsonRpcClient } from '../createJsonRpcClient.ts'
import { createAnswerCache } from './createAnswerCache.ts'
import { createCallBatcher, multicall3Address } from './createCallBatcher.ts'
import { type Devnet, startDevnet } from './devnet/startDevnet.ts'

const logger = pino({ level: 'silent' })

describe('createAnswerCache', () => {
  let devnet: Devnet
  let rpc: ReturnType<typeof createJsonRpcClient>
  /** Every request made, by method (eth_call split into folded and single, with its block). */
  let sent: string[] = []
  const request = (args: { method: string; params?: unknown }) => {
    if (args.method === 'eth_call') {
      const [call, block] = args.params as [{ to: Address }, unknown]
      sent.push(
        `eth_call:${call.to.toLowerCase() === multicall3Address.toLowerCase() ? 'multicall3' : 'single'}@${typeof block === 'string' ? block : 'hash'}`,
      )
    } else sent.push(args.method)
    return rpc.request(args)
  }
  const { canExecute, reverting, direct, settled } = validatorReads(
    () => devnet,
    () => rpc,
  )
  const status = (answer: Hex) => Number.parseInt(answer.slice(2, 4), 16)
  const latest = async () =>
    (await rpc.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
      hash: Hex
      number: Hex
      timestamp: Hex
    }
  const cached = (maxEntries?: number) => {
    const batcher = createCallBatcher({ request, logger, spread: 1, foldAt: 1000 })
    return { batcher, cache: createAnswerCache({ reads: batcher, request, ...(maxEntries ? { maxEntries } : {}) }) }
  }

  before(async () => {
    devnet = await startDevnet()
    rpc = createJsonRpcClient({ url: devnet.anvil.rpcUrl, timeoutMs: 10_000 })
  })
  after(async () => {
    await rpc?.close()
    await devnet?.stop()
  })

  it('answers as a plain eth_call; within one block each call goes to the node once, pinned to the block, and the head is read once for the turn', async () => {
    const { batcher, cache } = cached()
    await batcher.call(canExecute(1)) // finds Multicall3
    const calls = Array.from({ length: 10 }, (_, i) => canExecute(100 + i))
    sent = []
    const first = await Promise.all([...calls, ...calls].map((c) => settled(cache.call(c))))
    assert.deepEqual(first, await Promise.all([...calls, ...calls].map(direct)))
    assert.equal(
      new Set(first.map((r) => (r as { ok: Hex }).ok)).size,
      2,
      'two verdicts among them: not one answer copied',
    )
    assert.deepEqual(
      sent,
      ['eth_getBlockByNumber', 'eth_call:multicall3@hash'],
      'one head read, the ten distinct calls folded once at that block',
    )
    sent = []
    const again = await Promise.all(calls.map((c) => settled(cache.call(c))))
    assert.deepEqual(again, first.slice(0, 10))
    assert.deepEqual(sent, ['eth_getBlockByNumber'], 'the next turn asks only which block is the latest')
  })

  it('sends one head read at a time: requests that arrive while one is at the node wait for the next, sent after they arrived', async () => {
    const { batcher } = cached()
    await batcher.call(canExecute(1))
    let heads = 0
    let hold: (() => void) | undefined
    const held = (args: { method: string; params?: unknown }) => {
      if (args.method !== 'eth_getBlockByNumber') return rpc.request(args)
      heads++
      // The first read waits at the "node" until released; later ones go straight through.
      if (heads > 1) return rpc.request(args)
      return new Promise<void>((r) => (hold = r)).then(() => rpc.request(args))
    }
    const cache = createAnswerCache({ reads: batcher, request: held })
    const first = cache.call(canExecute(401))
    await new Promise((r) => setImmediate(r))
    assert.equal(heads, 1)
    const later = [cache.call(canExecute(403)), cache.call(canExecute(405))]
    await new Promise((r) => setTimeout(r, 20))
    assert.equal(heads, 1, 'no second read while the first is at the node')
    hold!()
    await Promise.all([first, ...later])
    assert.equal(heads, 2, 'one more read for both requests that arrived during the first')
  })

  it('drops every answer at a new block: an intent too early in one block is answered as executable in the next', async () => {
    const { cache } = cached()
    const now = BigInt((await latest()).timestamp)
    const intent = canExecute(201, now + 100n)
    const before = await cache.call(intent)
    assert.equal(status(before), Status.TOO_EARLY)
    assert.equal(status(await cache.call(intent)), Status.TOO_EARLY)
    await rpc.request({ method: 'evm_increaseTime', params: [200] })
    await rpc.request({ method: 'evm_mine', params: [] })
    const after = await cache.call(intent)
    assert.equal(status(after), Status.SUCCESS)
    assert.deepEqual({ ok: after }, await direct(intent))
  })

  it('never answers from another block at the same height (a reorg): answers are kept by block hash', async () => {
    const { cache } = cached()
    const head = await latest()
    const at = BigInt(head.timestamp) + 1000n
    const intent = canExecute(203, at)
    const snapshot = await rpc.request({ method: 'evm_snapshot', params: [] })
    await rpc.request({ method: 'evm_mine', params: [Number(at - 10n)] })
    const early = await latest()
    assert.equal(status(await cache.call(intent)), Status.TOO_EARLY)
    await rpc.request({ method: 'evm_revert', params: [snapshot] })
    await rpc.request({ method: 'evm_mine', params: [Number(at + 10n)] })
    const replaced = await latest()
    assert.equal(replaced.number, early.number, 'another block at the same height')
    assert.notEqual(replaced.hash, early.hash)
    assert.equal(status(await cache.call(intent)), Status.SUCCESS)
  })

  it("keeps no failure: a reverted read answers the node's own error each time, asking the node each time", async () => {
    const { batcher, cache } = cached()
    await batcher.call(canExecute(1))
    const expected = await direct(reverting())
    assert.ok('err' in expected)
    sent = []
    assert.deepEqual(await settled(cache.call(reverting())), expected)
    assert.deepEqual(await settled(cache.call(reverting())), expected)
    assert.deepEqual(
      sent.filter((s) => s.startsWith('eth_call')),
      ['eth_call:single@hash', 'eth_call:single@hash'],
    )
  })

  it('keeps at most maxEntries answers per block, the least recently used going first; the others are read again, right', async () => {
    const batcher = createCallBatcher({ request, logger, spread: 1, foldAt: 1000 })
    await batcher.call(canExecute(1))
    const asked: Hex[] = []
    const cache = createAnswerCache({
      reads: { call: (c) => (asked.push(c.data), batcher.call(c)) },
      request,
      maxEntries: 2,
    })
    const [a, b, c] = [canExecute(301), canExecute(302), canExecute(303)]
    await cache.call(a)
    await cache.call(b)
    await cache.call(a) // a used last: b goes when c comes
    await cache.call(c)
    asked.length = 0
    const answers = [await settled(cache.call(a)), await settled(cache.call(c)), await settled(cache.call(b))]
    assert.deepEqual(answers, await Promise.all([a, c, b].map(direct)))
    assert.deepEqual(asked, [b.data], 'only b, evicted, is read again')
  })

  it('an unreachable node fails the read once, with the transport error (no second wait)', async () => {
    let attempts = 0
    const down = (args: { method: string; params?: unknown }) => {
      attempts++
      return Promise.reject(
        new HttpRequestError({ url: 'http://127.0.0.1:1', details: `connect ECONNREFUSED (${args.method})` }),
      )
    }
    const cache = createAnswerCache({ reads: createCallBatcher({ request: down, logger }), request: down })
    const results = await Promise.all([settled(cache.call(canExecute(1))), settled(cache.call(canExecute(3)))])
    assert.ok(
      results.every((r) => 'err' in r && /ECONNREFUSED \(eth_getBlockByNumber\)/.test(r.err)),
      JSON.stringify(results),
    )
    assert.equal(attempts, 1, 'one head read for the turn, and no read after it failed')
  })
})
