import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createSimulationBatcher, type SimulatedCall } from './simulationBatcher.ts'

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
  const results = await Promise.all([batcher.simulate(call('0xa1')), batcher.simulate(call('0xa2', 200_000)), batcher.simulate(call('0xa3'))])
  assert.equal(asked.length, 1)
  assert.deepEqual(
    results.map((r) => r?.returnData),
    ['0xa1', '0xa2', '0xa3'],
  )
  assert.equal(results[1]?.gasUsed, '0x30d40')
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

test('under load the pending state is built at most once per gather window; a call after a quiet spell goes at once', async () => {
  const { batches: sent, request } = timedNode()
  const batcher = createSimulationBatcher(request, { gatherMs: 80 })
  const start = performance.now()
  await batcher.simulate(call('0x01'))
  assert.ok(sent[0]!.at - start < 40, 'the first call, after a quiet spell, waits for no window')
  // Calls arriving one after another, 10 ms apart, while the window since the last batch is open: they wait and go together.
  const asked: Promise<unknown>[] = []
  for (let i = 0; i < 5; i++) {
    asked.push(batcher.simulate(call(`0x1${i}`)))
    await new Promise((r) => setTimeout(r, 10))
  }
  await Promise.all(asked)
  assert.equal(sent.length, 2)
  assert.equal(sent[1]!.size, 5)
  assert.ok(sent[1]!.at - sent[0]!.at >= 75, `the second batch went ${(sent[1]!.at - sent[0]!.at).toFixed(0)} ms after the first, inside the window`)
  // A full batch (here: calls whose limits fill one block's gas budget) does not wait for the window.
  const full = Array.from({ length: 25 }, (_, i) => batcher.simulate(call(`0x2${i}`, 4_000_000)))
  const fullAsked = performance.now()
  await Promise.all(full)
  assert.equal(sent.length, 3)
  assert.equal(sent[2]!.size, 25)
  assert.ok(sent[2]!.at - fullAsked < 40, 'a full batch goes at once')
  // After a quiet spell longer than the window, a lone call goes at once again.
  await new Promise((r) => setTimeout(r, 100))
  const lone = performance.now()
  await batcher.simulate(call('0x03'))
  assert.ok(sent[3]!.at - lone < 40)
})

test('without load (few of the gateway transactions waiting), nothing waits for the window', async () => {
  const { batches, request } = timedNode()
  const batcher = createSimulationBatcher(request, { gatherMs: 1_000, loaded: () => false })
  const start = performance.now()
  for (let i = 0; i < 3; i++) await batcher.simulate(call(`0x0${i}`))
  assert.equal(batches.length, 3)
  assert.ok(performance.now() - start < 500, 'three simulations one after another, none waited for the 1 s window')
})

test('under load, a new block sends what waits for the window at once', async () => {
  const { batches, request } = timedNode()
  const batcher = createSimulationBatcher(request, { gatherMs: 5_000 })
  await batcher.simulate(call('0x01'))
  const waiting = Promise.all([batcher.simulate(call('0x02')), batcher.simulate(call('0x03'))])
  await new Promise((r) => setTimeout(r, 30))
  assert.equal(batches.length, 1, 'the second batch waits for the window')
  const seen = performance.now()
  batcher.blockSeen()
  await waiting
  assert.equal(batches.length, 2)
  assert.ok(batches[1]!.at - seen < 40, 'and goes once a block is seen')
  batcher.blockSeen() // nothing waits: nothing is sent
  await new Promise((r) => setTimeout(r, 10))
  assert.equal(batches.length, 2)
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
