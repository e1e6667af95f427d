import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createExecutionOrder } from './executionOrder.ts'
import { createSimulationBatcher, type ReplayedCall, type SimulatedCall } from './simulationBatcher.ts'

const call = (from: string, gas = 100_000): SimulatedCall => ({
  from: from as never,
  to: '0x00000000000000000000000000000000000000e0',
  data: '0x',
  gas: `0x${gas.toString(16)}`,
  maxFeePerGas: '0x1',
  maxPriorityFeePerGas: '0x1',
})
type Asked = { calls: SimulatedCall[] }[]

/** A node that answers every call with success and notes when each batch came and its size. */
function timedNode() {
  const batches: { at: number; size: number }[] = []
  const request = async ({ params }: { method: string; params: unknown[] }) => {
    const calls = (params[0] as { blockStateCalls: Asked }).blockStateCalls[0]!.calls
    batches.push({ at: performance.now(), size: calls.length })
    return [{ calls: calls.map(() => ({ status: '0x1', gasUsed: '0x1' })) }]
  }
  return { batches, request }
}

test('simulations asked together go to the node as one eth_simulateV1 at pending, each caller gets its own result', async () => {
  const asked: Asked[] = []
  const batcher = createSimulationBatcher(async ({ method, params }) => {
    assert.equal(method, 'eth_simulateV1')
    assert.equal(params[1], 'pending')
    const blocks = (params[0] as { blockStateCalls: Asked }).blockStateCalls
    asked.push(blocks)
    return [{ calls: blocks[0]!.calls.map((c) => ({ status: '0x1', gasUsed: c.gas, returnData: c.from })) }]
  })
  const results = await Promise.all([
    batcher.simulate(call('0xa1')),
    batcher.simulate(call('0xa2', 200_000)),
    batcher.simulate(call('0xa3')),
  ])
  assert.equal(asked.length, 1)
  assert.deepEqual(
    results.map((r) => r.result?.returnData),
    ['0xa1', '0xa2', '0xa3'],
  )
  assert.equal(results[1]?.result?.gasUsed, '0x30d40')
})

test('a call with the transaction that runs before it (a settlement) goes right after it, in the same batch; each caller gets both results', async () => {
  const asked: Asked[] = []
  const batcher = createSimulationBatcher(async ({ params }) => {
    const blocks = (params[0] as { blockStateCalls: Asked }).blockStateCalls
    asked.push(blocks)
    return [
      {
        calls: blocks[0]!.calls.map((c) => ({
          status: c.from === '0xbad' ? '0x0' : '0x1',
          gasUsed: c.gas,
          returnData: c.from,
        })),
      },
    ]
  })
  const results = await Promise.all([
    batcher.simulate(call('0xa1')),
    batcher.simulate(call('0xa2'), call('0xf1', 60_000)),
    batcher.simulate(call('0xa3'), call('0xbad')),
  ])
  assert.equal(asked.length, 1)
  assert.deepEqual(
    asked[0]![0]!.calls.map((c) => c.from),
    ['0xa1', '0xf1', '0xa2', '0xbad', '0xa3'],
  )
  assert.deepEqual(results[0]!.result, { status: '0x1', gasUsed: '0x186a0', returnData: '0xa1' })
  assert.equal(results[0]!.precededBy, undefined)
  assert.equal(results[1]!.result?.returnData, '0xa2')
  assert.equal(results[1]!.precededBy?.returnData, '0xf1')
  assert.equal(results[2]!.precededBy?.status, '0x0')
  assert.equal(results[2]!.result?.returnData, '0xa3')
  // Alone, the pair still goes together.
  const alone = await batcher.simulate(call('0xa4'), call('0xf2'))
  assert.deepEqual(
    asked.at(-1)![0]!.calls.map((c) => c.from),
    ['0xf2', '0xa4'],
  )
  assert.equal(alone.precededBy?.returnData, '0xf2')
})

test('a batch the node refuses as a whole is asked again call by call: each caller gets its own answer or error', async () => {
  let requests = 0
  const batcher = createSimulationBatcher(async ({ params }) => {
    requests++
    const calls = (params[0] as { blockStateCalls: Asked }).blockStateCalls[0]!.calls
    if (calls.some((c) => c.from === '0xpoor')) throw new Error('Insufficient funds for gas * price + value')
    return [{ calls: calls.map(() => ({ status: '0x1', gasUsed: '0x1' })) }]
  })
  const [rich, poor] = await Promise.allSettled([batcher.simulate(call('0xrich')), batcher.simulate(call('0xpoor'))])
  assert.equal(rich.status, 'fulfilled')
  assert.equal(poor.status, 'rejected')
  assert.match(String((poor as PromiseRejectedResult).reason), /Insufficient funds/)
  assert.equal(requests, 3)
})

test('one batch in flight: what is asked meanwhile goes in the next, and a batch keeps under the gas budget', async () => {
  const sizes: number[] = []
  let release: () => void = () => {}
  const batcher = createSimulationBatcher(async ({ params }) => {
    const calls = (params[0] as { blockStateCalls: Asked }).blockStateCalls[0]!.calls
    sizes.push(calls.length)
    if (sizes.length === 1) await new Promise<void>((r) => (release = r))
    return [{ calls: calls.map(() => ({ status: '0x1', gasUsed: '0x1' })) }]
  })
  const first = batcher.simulate(call('0x01'))
  await new Promise((r) => setImmediate(r))
  const later = [1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`, 40_000_000)))
  release()
  await Promise.all([first, ...later])
  // 100 M of limits at most in one batch: 2 of the 40 M calls, then 2 more.
  assert.deepEqual(sizes, [1, 2, 2])
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('executes arriving together go in one batch once they stop coming; a lone call and a full batch go at once', async () => {
  const { batches: sent, request } = timedNode()
  const batcher = createSimulationBatcher(request, { gatherMs: 1_000, pending: () => 0 })
  const start = performance.now()
  await batcher.simulate(call('0x01'))
  assert.ok(sent[0]!.at - start < 40, 'the first call, after a quiet spell, waits for nothing')
  // Four together: the next calls are under load.
  await Promise.all([1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`))))
  assert.equal(sent[1]!.size, 4)
  // Calls coming 1 ms apart gather while they come; they go a few ms after the last, not a window later.
  const asked: Promise<unknown>[] = []
  for (let i = 0; i < 6; i++) {
    asked.push(batcher.simulate(call(`0x1${i}`)))
    await sleep(1)
  }
  const last = performance.now()
  await Promise.all(asked)
  assert.equal(sent.length, 3, `one batch for the six: ${sent.map((b) => b.size).join(', ')}`)
  assert.equal(sent[2]!.size, 6)
  assert.ok(
    sent[2]!.at - last < 200,
    `it went ${(sent[2]!.at - last).toFixed(0)} ms after the last call, not a 1 s window later`,
  )
  // A full batch (here: calls whose limits fill the gas budget) goes at once.
  const fullAsked = performance.now()
  await Promise.all(Array.from({ length: 25 }, (_, i) => batcher.simulate(call(`0x2${i}`, 4_000_000))))
  assert.equal(sent[3]!.size, 25)
  assert.ok(sent[3]!.at - fullAsked < 40, 'a full batch goes at once')
})

test('while many of the gateway transactions wait in the pool, calls wait for a new block, at most the gather window from when each was asked', async () => {
  const { batches: sent, request } = timedNode()
  let waitingInPool = 0
  const batcher = createSimulationBatcher(request, { gatherMs: 150, pending: () => waitingInPool })
  await Promise.all([1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`))))
  waitingInPool = 20 // the four were sent and wait to be mined
  const asked = performance.now()
  const late = Promise.all([batcher.simulate(call('0x11')), batcher.simulate(call('0x12'))])
  await sleep(50)
  assert.equal(sent.length, 1, 'they wait: a pending build now would run the 20 again')
  await late
  assert.equal(sent.length, 2)
  const waited = sent[1]!.at - asked
  assert.ok(
    waited >= 140 && waited < 400,
    `no block seen: they went when the window ended, ${waited.toFixed(0)} ms after they were asked`,
  )
})

test('while many of the gateway transactions wait in the pool, a block that takes them sends what waits at once; one that leaves them does not', async () => {
  const { batches, request } = timedNode()
  let waitingInPool = 0
  const batcher = createSimulationBatcher(request, { gatherMs: 5_000, pending: () => waitingInPool })
  await Promise.all([1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`))))
  waitingInPool = 20
  const waiting = Promise.all([batcher.simulate(call('0x11')), batcher.simulate(call('0x12'))])
  await sleep(30)
  assert.equal(batches.length, 1, 'the second batch waits for a block')
  // A block cut before the gateway's sends: they still wait in the pool, and so do the calls.
  batcher.blockSeen()
  await sleep(30)
  assert.equal(batches.length, 1, 'a block that left them in the pool changes nothing')
  waitingInPool = 0
  const seen = performance.now()
  batcher.blockSeen()
  await waiting
  assert.equal(batches.length, 2)
  assert.equal(batches[1]!.size, 2)
  assert.ok(batches[1]!.at - seen < 40, 'and they go once a block took them')
  batcher.blockSeen() // nothing waits: nothing is sent
  await sleep(10)
  assert.equal(batches.length, 2)
})

test('a crowded pool that no batch of the window filled (stuck transactions, a slow chain) is not waited out: the calls go once they stop coming', async () => {
  const { batches, request } = timedNode()
  const batcher = createSimulationBatcher(request, { gatherMs: 150, pending: () => 20 })
  await Promise.all([1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`))))
  await sleep(200) // the window since that batch has passed; the 20 still wait
  const asked = performance.now()
  await batcher.simulate(call('0x11'))
  assert.equal(batches.length, 2)
  assert.ok(
    batches[1]!.at - asked < 100,
    `it went ${(batches[1]!.at - asked).toFixed(0)} ms after it was asked, not a window later`,
  )
})

test('without load (a lone client, few of the gateway transactions waiting), nothing waits', async () => {
  const { batches, request } = timedNode()
  const batcher = createSimulationBatcher(request, { gatherMs: 1_000, pending: () => 3 })
  const start = performance.now()
  for (let i = 0; i < 3; i++) await batcher.simulate(call(`0x0${i}`))
  assert.equal(batches.length, 3)
  assert.ok(performance.now() - start < 500, 'three simulations one after another, none waited for the 1 s window')
})

test('a window of 0 turns gathering off: each turn of the event loop goes at once, under load too', async () => {
  const { batches, request } = timedNode()
  const batcher = createSimulationBatcher(request, { gatherMs: 0, pending: () => 100 })
  await Promise.all([1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`))))
  const start = performance.now()
  await batcher.simulate(call('0x11'))
  assert.equal(batches.length, 2)
  assert.ok(batches[1]!.at - start < 40)
})

test('a batch over 25 M of limits gets a block with that much gas; one under it keeps the pending block gas limit', async () => {
  const blocks: { calls: SimulatedCall[]; blockOverrides?: { gasLimit: string } }[] = []
  const batcher = createSimulationBatcher(async ({ params }) => {
    const block = (params[0] as { blockStateCalls: (typeof blocks)[number][] }).blockStateCalls[0]!
    blocks.push(block)
    return [{ calls: block.calls.map(() => ({ status: '0x1', gasUsed: '0x1' })) }]
  })
  await Promise.all([batcher.simulate(call('0x01', 20_000_000)), batcher.simulate(call('0x02', 20_000_000))])
  await Promise.all([batcher.simulate(call('0x03', 1_000_000)), batcher.simulate(call('0x04', 1_000_000))])
  assert.deepEqual(blocks[0]!.blockOverrides, { gasLimit: '0x2625a00' })
  assert.equal(blocks[1]!.blockOverrides, undefined)
})

/** A transaction of the gateway's still in the pool, as the relayer's outbox gives it. */
const unmined = (from: string, nonce: number): ReplayedCall => ({
  from: from as never,
  to: '0x00000000000000000000000000000000000000e1',
  data: '0x01',
  value: '0x0',
  gas: '0x5208',
  nonce: `0x${nonce.toString(16)}`,
  maxFeePerGas: '0x1',
  maxPriorityFeePerGas: '0x1',
})

/** A node with `latest` at block 0x64 (time 0x10), answering each call with its sender as return data; `refuse` rejects any simulation on latest. */
function latestNode({ refuse = false, counts = {} as Record<string, number> } = {}) {
  const asked: { method: string; params: unknown[]; at: number }[] = []
  const request = async ({ method, params }: { method: string; params: unknown[] }) => {
    asked.push({ method, params, at: performance.now() })
    if (method === 'eth_getBlockByNumber') return { number: '0x64', timestamp: '0x10' }
    if (method === 'eth_getTransactionCount') {
      assert.equal(params[1], '0x64', 'the count on the block simulated on')
      return `0x${(counts[params[0] as string] ?? 0).toString(16)}`
    }
    if (refuse && params[1] !== 'pending') throw new Error('nonce too low')
    const calls = (params[0] as { blockStateCalls: Asked }).blockStateCalls[0]!.calls
    return [{ calls: calls.map((c) => ({ status: '0x1', gasUsed: c.gas, returnData: c.from })) }]
  }
  return { asked, request, simulations: () => asked.filter((a) => a.method === 'eth_simulateV1') }
}

test('with every unmined transaction of the gateway known, a batch runs on the latest block after them, in the block that follows it at a time not before now; callers get only their own results', async () => {
  const node = latestNode({ counts: { '0xr1': 7, '0xr2': 3 } })
  const batcher = createSimulationBatcher(node.request, {
    own: () => [
      { address: '0xr1' as never, calls: [unmined('0xr1', 7), unmined('0xr1', 8)] },
      { address: '0xr2' as never, calls: [unmined('0xr2', 3)] },
      { address: '0xr3' as never, calls: [] },
    ],
  })
  const results = await Promise.all([batcher.simulate(call('0xa1')), batcher.simulate(call('0xa2'), call('0xf1'))])
  assert.deepEqual(
    node.asked.map((a) => a.method),
    ['eth_getBlockByNumber', 'eth_getTransactionCount', 'eth_getTransactionCount', 'eth_simulateV1'],
  )
  const [simulation] = node.simulations()
  assert.equal(simulation!.params[1], '0x64', 'on the block read as latest, never pending')
  const block = (
    simulation!.params[0] as {
      blockStateCalls: { calls: { from: string; nonce?: string }[]; blockOverrides: { number: string; time: string } }[]
    }
  ).blockStateCalls[0]!
  assert.deepEqual(
    block.calls.map((c) => `${c.from}${c.nonce ? `@${c.nonce}` : ''}`),
    ['0xr1@0x7', '0xr1@0x8', '0xr2@0x3', '0xa1', '0xf1', '0xa2'],
  )
  assert.equal(block.blockOverrides.number, '0x65')
  assert.ok(
    Number(block.blockOverrides.time) >= Math.floor(Date.now() / 1000) - 1,
    'not before now (the latest block was long ago)',
  )
  assert.equal(results[0]!.result?.returnData, '0xa1')
  assert.equal(results[1]!.precededBy?.returnData, '0xf1')
  assert.equal(results[1]!.result?.returnData, '0xa2')
})

test('with the pool replayed on latest, a crowded pool is no reason to wait for a block: the calls go once they stop coming', async () => {
  const node = latestNode()
  const batcher = createSimulationBatcher(node.request, {
    gatherMs: 1_000,
    pending: () => 40,
    own: () => [{ address: '0xr1' as never, calls: Array.from({ length: 40 }, (_, i) => unmined('0xr1', i)) }],
  })
  await Promise.all([1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`))))
  const asked = performance.now()
  await Promise.all([batcher.simulate(call('0x11')), batcher.simulate(call('0x12'))])
  const simulations = node.simulations()
  assert.equal(simulations.length, 2)
  assert.ok(
    simulations[1]!.at - asked < 200,
    `it went ${(simulations[1]!.at - asked).toFixed(0)} ms after it was asked, not when a block came or the 1 s window ended`,
  )
})

/**
 * A batcher on `latestNode` whose one key's unmined transactions are `keep(n)`'s (nonces 0..n-1),
 * counting each simulation's asked and replayed calls; `wave(from, n)` asks n calls together.
 */
function replayingBatcher(gatherMs: number) {
  const node = latestNode()
  let kept: ReplayedCall[] = []
  const counted: [number, number][] = []
  const batcher = createSimulationBatcher(node.request, {
    gatherMs,
    pending: () => kept.length,
    own: () => [{ address: '0xr1' as never, calls: kept }],
    onSimulated: (asked, replayed) => counted.push([asked, replayed]),
  })
  const keep = (n: number) => {
    kept = Array.from({ length: n }, (_, i) => unmined('0xr1', i))
  }
  const wave = (from: number, n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => batcher.simulate(call(`0x${(from + i).toString(16)}`))))
  return { node, batcher, counted, keep, wave, simulations: () => node.simulations().length }
}

test('a straggler behind a wave just sent (its replay 64 or more, and over 4 times the calls waiting) waits for the block that mines the wave, at most the window; a larger batch, a small replay or an old one goes at once', async () => {
  const { node, batcher, counted, keep, wave, simulations } = replayingBatcher(150)
  await wave(0x100, 4)
  // The wave's 64 transactions are in the pool; one execute arrives just after.
  keep(64)
  const straggler = batcher.simulate(call('0xa1'))
  await sleep(40)
  assert.equal(simulations(), 1, 'the straggler waits: its replay would be 64 calls for 1')
  const blockAt = performance.now()
  keep(0) // the block mined the wave
  batcher.blockSeen()
  await straggler
  assert.equal(simulations(), 2)
  assert.ok(node.simulations()[1]!.at - blockAt < 40, 'it went when the block came')
  assert.deepEqual(counted.at(-1), [1, 0], 'with nothing replayed')

  // No block comes: it goes when the window from its ask ends, replay and all.
  await wave(0x200, 4)
  keep(64)
  const asked = performance.now()
  await batcher.simulate(call('0xa2'))
  const waited = node.simulations()[3]!.at - asked
  assert.ok(waited >= 140 && waited < 400, `it waited for the window: ${waited.toFixed(0)} ms`)
  assert.deepEqual(counted.at(-1), [1, 64])

  // 63 replayed, or 64 replayed for 16 calls (not over 4 times): at once.
  for (const [replay, calls] of [
    [63, 1],
    [64, 16],
  ] as const) {
    await wave(0x300, 4)
    keep(replay)
    const at = performance.now()
    const before = simulations()
    await wave(0x400, calls)
    assert.equal(simulations(), before + 1)
    assert.ok(node.simulations().at(-1)!.at - at < 100, `${replay} replayed for ${calls}: it went at once`)
    assert.deepEqual(counted.at(-1), [calls, replay])
  }

  // A replay left from a batch sent longer ago than the window (stuck transactions): not waited out.
  await wave(0x500, 4)
  keep(100)
  await sleep(200)
  const late = performance.now()
  await batcher.simulate(call('0xa3'))
  assert.ok(node.simulations().at(-1)!.at - late < 100, 'an old replay is not waited out')
})

test('a batch behind a replay of 64 or more, asked with the next block due within half the spacing, waits for that block, at most the window; with the block due later it goes once the calls stop coming', async () => {
  const { node, batcher, counted, keep, wave, simulations } = replayingBatcher(300)
  // A block seen on a chain of 200 ms blocks; a wave goes, and 100 of the gateway's transactions wait.
  batcher.blockSeen(200)
  await wave(0x100, 4)
  keep(100)
  await sleep(120)
  // The next block is due in ~80 ms: 100 calls replaying 100 (not a straggler: not over 4 times) wait for it.
  const part = wave(0x200, 100)
  await sleep(40)
  assert.equal(simulations(), 1, 'the batch waits for the block due within half the spacing')
  keep(0) // the block mined them
  const blockAt = performance.now()
  batcher.blockSeen(200)
  await part
  assert.equal(simulations(), 2)
  assert.ok(node.simulations()[1]!.at - blockAt < 40, 'it went when the block came')
  assert.deepEqual(counted.at(-1), [100, 0], 'with nothing replayed')

  // The next block due in ~200 ms: the same batch goes once its calls stop coming, replay and all.
  batcher.blockSeen(200)
  keep(100)
  const at = performance.now()
  await wave(0x300, 100)
  assert.ok(node.simulations().at(-1)!.at - at < 60, 'it went at once')
  assert.deepEqual(counted.at(-1), [100, 100])

  // No block comes: it goes when the window from its ask ends.
  await sleep(120)
  const asked = performance.now()
  await wave(0x400, 100)
  const waited = node.simulations().at(-1)!.at - asked
  assert.ok(waited >= 280 && waited < 600, `it waited for the window: ${waited.toFixed(0)} ms`)
  assert.deepEqual(counted.at(-1), [100, 100])
})

test('executes arriving together, asked with the next block due before the first of them could reach the pool (10 ms and 0.5 ms a call) and some of the gateway transactions unmined, wait for that block, at most until it is 5 ms late; with the block due later, a smaller batch or nothing unmined, they go once the calls stop coming', async () => {
  const { node, batcher, counted, keep, wave, simulations } = replayingBatcher(300)
  await wave(0x100, 4) // executes arrive together: the next batch gathers
  const lastAt = () => node.simulations().at(-1)!.at
  // A block seen on a chain of 400 ms blocks, 36 of the gateway's transactions left for the next (a
  // wave mined over two blocks); ~100 ms before it, 200 calls (110 ms to the pool) wait for it.
  keep(36)
  batcher.blockSeen(400)
  await sleep(300)
  const part = wave(0x200, 200)
  await sleep(30)
  assert.equal(simulations(), 1, 'the batch waits for the block')
  const blockAt = performance.now()
  keep(0) // the block mined them
  batcher.blockSeen(400)
  await part
  assert.equal(simulations(), 2)
  assert.ok(lastAt() - blockAt < 40, 'it went when the block came')
  assert.deepEqual(counted.at(-1), [200, 0], 'with nothing replayed')

  // The same, with nothing of the gateway's unmined: the block would spare no replay, and the batch
  // goes once its calls stop coming.
  batcher.blockSeen(400)
  await sleep(300)
  let at = performance.now()
  await wave(0x250, 200)
  assert.ok(lastAt() - at < 60, `it went at once: ${(lastAt() - at).toFixed(0)} ms`)
  keep(36)

  // The next block due in ~400 ms: the same batch goes once its calls stop coming.
  batcher.blockSeen(400)
  at = performance.now()
  await wave(0x300, 200)
  assert.ok(lastAt() - at < 60, `it went at once: ${(lastAt() - at).toFixed(0)} ms`)

  // ~100 ms before the next block, which does not come: the batch goes once it is 5 ms late, not at the window's end.
  batcher.blockSeen(400)
  await sleep(300)
  at = performance.now()
  await wave(0x400, 200)
  const waited = lastAt() - at
  assert.ok(waited >= 60 && waited < 250, `it waited for the block's due time: ${waited.toFixed(0)} ms`)

  // 8 calls, 14 ms to the pool, ~100 ms before the next block: they can reach it first, and go once they stop coming.
  batcher.blockSeen(400)
  await sleep(300)
  at = performance.now()
  await wave(0x500, 8)
  assert.ok(lastAt() - at < 60, `the smaller batch went at once: ${(lastAt() - at).toFixed(0)} ms`)
  assert.equal(simulations(), 6)
})

test('the next block is due when the watch says it is (`dueInMs`), not a spacing after it was seen', async () => {
  const { node, batcher, keep, wave } = replayingBatcher(300)
  await wave(0x100, 4)
  keep(36)
  const lastAt = () => node.simulations().at(-1)!.at
  // Seen late: the next block is due in ~100 ms, within the 110 ms 200 calls take to the pool.
  batcher.blockSeen(400, 100)
  const at = performance.now()
  const going = wave(0x200, 200)
  await sleep(40)
  assert.ok(node.simulations().at(-1)!.at < at, 'the batch waits for the block')
  await going
  assert.ok(
    lastAt() - at >= 90 && lastAt() - at < 200,
    `it went once that block was 5 ms late: ${(lastAt() - at).toFixed(0)} ms`,
  )
  // Told nothing of when: a spacing after the sight (~400 ms), beyond the time to the pool.
  batcher.blockSeen(400)
  const next = performance.now()
  await wave(0x300, 200)
  assert.ok(lastAt() - next < 60, `it went once its calls stopped coming: ${(lastAt() - next).toFixed(0)} ms`)
})

test('the time to the pool is what the batches measured: a wave whose batches reached the pool quickly goes before a block due within the model; one whose batches were slow waits for a block due beyond it', async () => {
  const { node, batcher, keep, wave } = replayingBatcher(300)
  await wave(0x100, 4)
  keep(36) // some of the gateway's transactions unmined: a block due soon is worth a wait
  const lastAt = () => node.simulations().at(-1)!.at
  /** `n` waves of 200, the first transaction of each in the pool `after` ms after its batch was asked. */
  const measured = async (n: number, after: number) => {
    for (let i = 0; i < n; i++) {
      const results = await wave(0x1000 * (i + 2), 200)
      await sleep(after)
      // Every transaction of the batch tells it; only the first counts.
      for (const r of results) batcher.pooled(r.turn.askedAt!)
    }
  }
  // Quick: ~20 ms against the model's 110 for 200 calls.
  await measured(8, 5)
  batcher.blockSeen(400)
  await sleep(300) // the next block due in ~100 ms: within the model's 110 ms, beyond the measured ~40
  let at = performance.now()
  await wave(0x20000, 200)
  assert.ok(lastAt() - at < 60, `it went once its calls stopped coming: ${(lastAt() - at).toFixed(0)} ms`)

  // Slow: ~4 times the model.
  await measured(8, 450)
  batcher.blockSeen(400)
  await sleep(150) // the next block due in ~250 ms: beyond the model, within what was measured
  at = performance.now()
  const going = wave(0x30000, 200)
  await sleep(120)
  assert.equal(node.simulations().at(-1)!.at < at, true, 'the batch waits for the block')
  const blockAt = performance.now()
  batcher.blockSeen(400)
  await going
  assert.ok(lastAt() - blockAt < 40, 'it went when the block came')
})

test('while some unmined transaction of the gateway is not known, the batch runs at the pending block, and a crowded pool still waits for a block', async () => {
  const node = latestNode()
  const batcher = createSimulationBatcher(node.request, { gatherMs: 150, pending: () => 20, own: () => undefined })
  await Promise.all([1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`))))
  const asked = performance.now()
  await Promise.all([batcher.simulate(call('0x11')), batcher.simulate(call('0x12'))])
  const simulations = node.simulations()
  assert.deepEqual(
    simulations.map((s) => s.params[1]),
    ['pending', 'pending'],
  )
  assert.equal(
    node.asked.some((a) => a.method === 'eth_getBlockByNumber'),
    false,
  )
  assert.ok(simulations[1]!.at - asked >= 140, 'it waited for the window: no block came')
})

test('a batch the node refuses with the replay runs at the pending block instead, where each caller gets its own answer', async () => {
  const node = latestNode({ refuse: true })
  const refused: unknown[] = []
  const batcher = createSimulationBatcher(node.request, {
    own: () => [{ address: '0xr1' as never, calls: [unmined('0xr1', 0)] }],
    onReplayRefused: (err) => refused.push(err),
  })
  const results = await Promise.all([batcher.simulate(call('0xa1')), batcher.simulate(call('0xa2'))])
  assert.deepEqual(
    node.simulations().map((s) => s.params[1]),
    ['0x64', 'pending'],
  )
  assert.equal(refused.length, 1)
  assert.deepEqual(
    results.map((r) => r.result?.returnData),
    ['0xa1', '0xa2'],
  )
  // The pending block holds the pool: nothing is replayed there.
  const pendingCalls = (node.simulations()[1]!.params[0] as { blockStateCalls: Asked }).blockStateCalls[0]!.calls
  assert.deepEqual(
    pendingCalls.map((c) => c.from),
    ['0xa1', '0xa2'],
  )
})

test("what a key's count on the block simulated on says was mined is not replayed (and forgotten); a nonce from the count up that is not kept sends the batch to the pending block", async () => {
  const node = latestNode({ counts: { '0xr1': 8, '0xr2': 1 } })
  const told: string[] = []
  const batcher = createSimulationBatcher(node.request, {
    own: () => [
      // 7 was mined, or its nonce taken by a transaction signed elsewhere: replaying it would run an intent the chain never runs.
      { address: '0xr1' as never, calls: [unmined('0xr1', 7), unmined('0xr1', 8)] },
      { address: '0xr2' as never, calls: [unmined('0xr2', 1)] },
    ],
    onMinedBelow: (address, count) => told.push(`${address} mined below ${count}`),
    onLacking: (address) => told.push(`${address} lacking`),
  })
  await batcher.simulate(call('0xa1'))
  const [first] = node.simulations()
  assert.deepEqual(
    (
      first!.params[0] as { blockStateCalls: { calls: { from: string; nonce?: string }[] }[] }
    ).blockStateCalls[0]!.calls.map((c) => `${c.from}${c.nonce ? `@${c.nonce}` : ''}`),
    ['0xr1@0x8', '0xr2@0x1', '0xa1'],
  )
  assert.deepEqual(told, ['0xr1 mined below 8', '0xr2 mined below 1'])
  // The node's count is 5 while the lowest kept is 7: 5 and 6 wait somewhere this instance has no bytes of.
  const gap = latestNode({ counts: { '0xr1': 5 } })
  told.length = 0
  const refused: unknown[] = []
  const gapped = createSimulationBatcher(gap.request, {
    own: () => [{ address: '0xr1' as never, calls: [unmined('0xr1', 7), unmined('0xr1', 8)] }],
    onMinedBelow: (address, count) => told.push(`${address} mined below ${count}`),
    onLacking: (address) => told.push(`${address} lacking`),
    onReplayRefused: (err) => refused.push(err),
  })
  const answered = await gapped.simulate(call('0xa1'))
  assert.equal(answered.result?.returnData, '0xa1')
  assert.deepEqual(
    gap.simulations().map((s) => s.params[1]),
    ['pending'],
  )
  assert.deepEqual(told, ['0xr1 mined below 5', '0xr1 lacking'])
  assert.match(String(refused[0]), /leaves a nonce/)
})

test('a key whose next nonce is above its count and what is kept (a transaction of its mined, then put back in the pool by a reorg) sends the batch to the pending block; one with nothing kept and its count at its next nonce is replayed as nothing', async () => {
  const node = latestNode({ counts: { '0xr1': 4, '0xr2': 9 } })
  const lacking: string[] = []
  const batcher = createSimulationBatcher(node.request, {
    own: () => [
      { address: '0xr1' as never, calls: [], next: 5 },
      { address: '0xr2' as never, calls: [], next: 9 },
    ],
    onLacking: (address) => lacking.push(address),
  })
  await batcher.simulate(call('0xa1'))
  assert.deepEqual(
    node.simulations().map((s) => s.params[1]),
    ['pending'],
  )
  assert.deepEqual(lacking, ['0xr1'])
  const fine = latestNode({ counts: { '0xr2': 9 } })
  await createSimulationBatcher(fine.request, {
    own: () => [{ address: '0xr2' as never, calls: [], next: 9 }],
  }).simulate(call('0xa1'))
  assert.deepEqual(
    fine.simulations().map((s) => s.params[1]),
    ['0x64'],
  )
})

test('a batch is simulated once every execution that claimed its signature is in its view; each caller gets its turn, and the paid calls go after the rest', async () => {
  const node = latestNode()
  const order = createExecutionOrder()
  const batcher = createSimulationBatcher(node.request, { own: () => [], order })
  // An execution past its claim, its signature not made yet: the next batch waits for it.
  const [earlier] = order.batch(0, 1)
  assert.equal(earlier!.claim(), true)
  setTimeout(() => order.noteSigned(), 40)
  const started = performance.now()
  const [paid, plain] = await Promise.all([
    batcher.simulate(call('0xa1'), call('0xf1')),
    batcher.simulate(call('0xa2')),
  ])
  assert.ok(performance.now() - started >= 35, 'simulated once the claimed execution was signed')
  const [simulation] = node.simulations()
  assert.deepEqual(
    (simulation!.params[0] as { blockStateCalls: Asked }).blockStateCalls[0]!.calls.map((c) => c.from),
    ['0xa2', '0xf1', '0xa1'],
    'the paid call (sent once its settlement is mined) after the unpaid one',
  )
  assert.equal(paid.result?.returnData, '0xa1')
  assert.equal(plain.result?.returnData, '0xa2')
  // The view holds the signed one: the unpaid call claims first, then the paid one.
  assert.equal(paid.turn.claim(), false)
  assert.equal(plain.turn.claim(), true)
  assert.equal(paid.turn.claim(), true)
})

test('a confirmation (the same call again at another limit) goes after the rest of its batch, paid calls included', async () => {
  const node = latestNode()
  const batcher = createSimulationBatcher(node.request, { own: () => [] })
  await Promise.all([
    batcher.simulate(call('0xc1'), undefined, { confirming: true }),
    batcher.simulate(call('0xa1'), call('0xf1')),
    batcher.simulate(call('0xa2')),
  ])
  const [simulation] = node.simulations()
  assert.deepEqual(
    (simulation!.params[0] as { blockStateCalls: Asked }).blockStateCalls[0]!.calls.map((c) => c.from),
    ['0xa2', '0xf1', '0xa1', '0xc1'],
  )
})

/** A batch of executes that arrived together (four calls): the load under which a block's head is read as it is seen. */
async function underLoad(batcher: ReturnType<typeof createSimulationBatcher>, node: ReturnType<typeof latestNode>) {
  await Promise.all(['0xb1', '0xb2', '0xb3', '0xb4'].map((from) => batcher.simulate(call(from))))
  node.asked.length = 0
}

test("a block seen under load on a chain whose pace is known: its head and each key's count are read then, and a batch within most of the spacing asks the node for the simulation alone", async () => {
  const node = latestNode({ counts: { '0xr1': 7 } })
  const batcher = createSimulationBatcher(node.request, {
    own: () => [
      { address: '0xr1' as never, calls: [unmined('0xr1', 7), unmined('0xr1', 8)] },
      { address: '0xr2' as never, calls: [] },
    ],
  })
  await underLoad(batcher, node)
  batcher.blockSeen(200)
  await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(
    node.asked.map((a) => a.method),
    ['eth_getBlockByNumber', 'eth_getTransactionCount'],
    'read at the block; a key with nothing kept and no next nonce is not asked',
  )
  const result = await batcher.simulate(call('0xa1'))
  assert.equal(result.result?.returnData, '0xa1')
  assert.deepEqual(
    node.asked.map((a) => a.method),
    ['eth_getBlockByNumber', 'eth_getTransactionCount', 'eth_simulateV1'],
  )
  const [simulation] = node.simulations()
  assert.equal(simulation!.params[1], '0x64')
  assert.deepEqual(
    (
      simulation!.params[0] as { blockStateCalls: { calls: { from: string; nonce?: string }[] }[] }
    ).blockStateCalls[0]!.calls.map((c) => `${c.from}${c.nonce ? `@${c.nonce}` : ''}`),
    ['0xr1@0x7', '0xr1@0x8', '0xa1'],
  )
})

test('a head read at a block stands only for most of the spacing, and none is read without load, when the pace is unknown, or stands when the read failed: the batch reads its own', async () => {
  const keys = () => [{ address: '0xr1' as never, calls: [unmined('0xr1', 7)] }]
  const methods = (node: ReturnType<typeof latestNode>) => node.asked.map((a) => a.method)
  const own = ['eth_getBlockByNumber', 'eth_getTransactionCount', 'eth_simulateV1']

  // Past three quarters of a 20 ms spacing.
  const late = latestNode({ counts: { '0xr1': 7 } })
  const lateBatcher = createSimulationBatcher(late.request, { own: keys })
  await underLoad(lateBatcher, late)
  lateBatcher.blockSeen(20)
  await new Promise((resolve) => setTimeout(resolve, 25))
  await lateBatcher.simulate(call('0xa1'))
  assert.deepEqual(methods(late), ['eth_getBlockByNumber', 'eth_getTransactionCount', ...own])

  // A chain whose spacing is not known yet.
  const unknown = latestNode({ counts: { '0xr1': 7 } })
  const unknownBatcher = createSimulationBatcher(unknown.request, { own: keys })
  await underLoad(unknownBatcher, unknown)
  unknownBatcher.blockSeen(undefined)
  await unknownBatcher.simulate(call('0xa1'))
  assert.deepEqual(methods(unknown), own)

  // The head read at the block failed.
  const flaky = latestNode({ counts: { '0xr1': 7 } })
  let failed = false
  let loaded = false
  const flakyBatcher = createSimulationBatcher(
    async (args) => {
      if (args.method === 'eth_getBlockByNumber' && loaded && !failed) {
        failed = true
        throw new Error('node busy')
      }
      return flaky.request(args)
    },
    { own: keys },
  )
  await underLoad(flakyBatcher, flaky)
  loaded = true
  flakyBatcher.blockSeen(200)
  await new Promise((resolve) => setTimeout(resolve, 5))
  const answered = await flakyBatcher.simulate(call('0xa1'))
  assert.equal(answered.result?.returnData, '0xa1')
  assert.deepEqual(methods(flaky), own)

  // A lone client (its last batch one call): nothing is read at the block.
  const lone = latestNode({ counts: { '0xr1': 7 } })
  const loneBatcher = createSimulationBatcher(lone.request, { own: keys })
  await loneBatcher.simulate(call('0xa1'))
  lone.asked.length = 0
  loneBatcher.blockSeen(200)
  await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(methods(lone), [])

  // While some unmined transaction is not known (the batch runs at the pending block), nothing is read at the block.
  const blind = latestNode()
  const blindBatcher = createSimulationBatcher(blind.request, { own: () => undefined })
  await underLoad(blindBatcher, blind)
  blindBatcher.blockSeen(200)
  await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(methods(blind), [])
})

test("a head read at a block that a kept transaction's receipt has since overtaken (its nonce no longer kept, the count read below it) is read again, with no key found lacking", async () => {
  const counts: Record<string, number> = { '0xr1': 7 }
  const node = latestNode({ counts })
  let kept = [unmined('0xr1', 7), unmined('0xr1', 8)]
  const lacking: string[] = []
  const batcher = createSimulationBatcher(node.request, {
    own: () => [{ address: '0xr1' as never, calls: kept }],
    onLacking: (address) => lacking.push(address),
  })
  await underLoad(batcher, node)
  batcher.blockSeen(200)
  await new Promise((resolve) => setTimeout(resolve, 5))
  // Nonce 7's receipt came in the next block, before the watch told the batcher of it.
  kept = [unmined('0xr1', 8)]
  counts['0xr1'] = 8
  const answered = await batcher.simulate(call('0xa1'))
  assert.equal(answered.result?.returnData, '0xa1')
  assert.deepEqual(lacking, [])
  assert.deepEqual(
    node.asked.map((a) => a.method),
    [
      'eth_getBlockByNumber',
      'eth_getTransactionCount',
      'eth_getBlockByNumber',
      'eth_getTransactionCount',
      'eth_simulateV1',
    ],
  )
  const [simulation] = node.simulations()
  assert.deepEqual(
    (
      simulation!.params[0] as { blockStateCalls: { calls: { from: string; nonce?: string }[] }[] }
    ).blockStateCalls[0]!.calls.map((c) => `${c.from}${c.nonce ? `@${c.nonce}` : ''}`),
    ['0xr1@0x8', '0xa1'],
  )
})
