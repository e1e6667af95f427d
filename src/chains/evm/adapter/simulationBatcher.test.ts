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
  const later = [1, 2, 3, 4].map((i) => batcher.simulate(call(`0x0${i}`, 10_000_000)))
  release()
  await Promise.all([first, ...later])
  // 25 M of limits at most in one block: 2 of the 10 M calls, then 2 more.
  assert.deepEqual(sizes, [1, 2, 2])
})
