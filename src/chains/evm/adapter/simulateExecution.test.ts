import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type Hex, numberToHex } from 'viem'
import type { EvmContext } from './evmContext.ts'
import { gasMarginAtLeast, limitFor, neededFor } from './executionGas.ts'
import { createExecutionOrder, type SimulationTurn } from './executionOrder.ts'
import { simulateExecution } from './simulateExecution.ts'
import type { SimulatedCall } from './simulationBatcher.ts'

/**
 * A node whose executions use `gasOf(data)` gas and run out of it below what that needs (EIP-150);
 * `bundled`: each simulated in a bundle (its turn names the run, as the batcher's do with a bundler),
 * except a confirmation, which is a transaction of its own.
 */
function world(gasOf: (data: Hex) => bigint, { bundled = false } = {}) {
  const asked: bigint[] = []
  const turns: { turn: SimulationTurn; confirming: boolean }[] = []
  const ctx = {
    chain: { executor: '0x00000000000000000000000000000000000000e1', chainId: 'eip155:31337' },
    state: {},
    gasByShape: new Map(),
    simulations: {
      async simulate(call: SimulatedCall, _before?: SimulatedCall, options?: { confirming?: boolean }) {
        const limit = BigInt(call.gas)
        asked.push(limit)
        const used = gasOf(call.data)
        const ok = limit >= neededFor(used)
        const turn = createExecutionOrder().batch(0, 1)[0]!
        if (bundled && !options?.confirming) turn.chunk = { size: 1 }
        turns.push({ turn, confirming: options?.confirming === true })
        return {
          result: { status: ok ? '0x1' : '0x0', gasUsed: numberToHex(ok ? used : limit), returnData: '0x' },
          turn,
        }
      },
    },
  } as unknown as EvmContext
  return { asked, turns, execute: executeIn(ctx) }
}

/** An execution of one shape (the counter's increment) with this call data, simulated in `ctx`. */
const executeIn = (ctx: EvmContext) => (data: Hex) =>
  simulateExecution(ctx, {
    from: '0x00000000000000000000000000000000000000a1',
    data,
    fees: { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n },
    cap: undefined,
    shape: 'counter.increment',
  })

/** The limit the gateway sends for an execution that used `used`: its need, then 20% head-room (at least 25,000 gas). */
const band = (used: bigint) => {
  const needed = neededFor(used)
  const share = (needed * 120n) / 100n
  const least = share > needed + gasMarginAtLeast ? share : needed + gasMarginAtLeast
  return [least, (least * 5n) / 4n] as const
}

test('the head-room is 20% of what an execution needs, and never less than an empty storage slot costs over a set one (25,000 gas)', () => {
  const request = { cap: undefined } as never
  // ~95,000 gas: 20% (19,000) would not cover one more write to an empty slot (+17,100) and refunds.
  assert.equal(limitFor(95_000n, request), 120_000n)
  assert.equal(limitFor(500_000n, request), 600_000n)
  assert.equal(limitFor(125_000n, request), 150_000n)
  // The cap still bounds it.
  assert.equal(limitFor(95_000n, { cap: { gas: 110_000n, by: 'price' } } as never), 110_000n)
})

test('a shape mostly at one gas and now and then ~18% more is simulated once per execution once it has seen both; each limit fits its own gas', async () => {
  const usual = 93_392n
  const odd = 110_684n // a nonce that opens a fresh storage word
  const { asked, execute } = world((data) => (data === '0x02' ? odd : usual))
  const order: Hex[] = ['0x01', '0x01', '0x01', '0x02', '0x01', '0x01', '0x01', '0x02', '0x01']
  const counts: number[] = []
  for (const data of order) {
    const before = asked.length
    const s = await execute(data)
    assert.ok(s.ok)
    const [low, high] = band(data === '0x02' ? odd : usual)
    assert.ok(s.gasLimit >= low && s.gasLimit <= high, `limit ${s.gasLimit} for ${data} outside [${low}, ${high}]`)
    counts.push(asked.length - before)
  }
  // The first: at the cap, then confirmed. The first odd one: at the usual limit, then confirmed at
  // its own. From then on one limit fits both.
  assert.deepEqual(counts, [2, 1, 1, 2, 1, 1, 1, 1, 1])
})

test('a shape whose gas rose for good is simulated once per execution again from the second one at the new gas', async () => {
  let gas = 93_392n
  const { asked, execute } = world(() => gas)
  await execute('0x01')
  await execute('0x01')
  gas = 150_000n // the target's state changed: every execution now needs more
  const counts: number[] = []
  for (let i = 0; i < 4; i++) {
    const before = asked.length
    const s = await execute('0x01')
    assert.ok(s.ok)
    counts.push(asked.length - before)
  }
  // The first runs out of gas at the old limit: then at the cap, then confirmed.
  assert.deepEqual(counts, [3, 1, 1, 1])
})

test('an execution keeps the place of the simulation its limit came from: a confirmation goes last and its own turn is given up', async () => {
  const { turns, execute } = world(() => 93_392n)
  // A new shape: at the cap, then confirmed at the limit.
  const first = await execute('0x01')
  assert.ok(first.ok)
  assert.deepEqual(
    turns.map((t) => t.confirming),
    [false, true],
  )
  assert.equal(first.turn, turns[0]!.turn, 'the run at the cap holds its place')
  assert.equal(turns[1]!.turn.fresh(), false, "the confirmation's own turn is given up")
  assert.equal(first.turn!.fresh(), true)
  // Known: once, at the remembered limit, in band: that run's place.
  const second = await execute('0x01')
  assert.ok(second.ok)
  assert.equal(second.turn, turns[2]!.turn)
  assert.equal(turns.length, 3)
})

test('executions of one shape in flight together are each sent with what the most of them needs: the chain may mine the one simulated after the other first, and it then pays for the storage the other met empty', async () => {
  const usual = 93_392n
  // Simulated first on a fresh counter and a fresh nonce word: two writes to empty slots (2 × 17,100).
  const first = usual + 34_200n
  const { execute } = world((data) => (data === '0x0f' ? first : usual))
  const covers = limitFor(neededFor(first), { cap: undefined } as never)
  // A new shape: both at the cap in one batch, the first-writer ahead.
  const [a, b] = await Promise.all([execute('0x0f'), execute('0x01')])
  assert.ok(a.ok && b.ok)
  assert.ok(
    neededFor(first) > limitFor(neededFor(usual), { cap: undefined } as never),
    'its own limit would not cover it',
  )
  assert.equal(a.gasLimit, covers)
  assert.equal(b.gasLimit, covers, 'the one simulated after it is sent with enough to run first')
  // A shape known at the usual gas, then a first-writer in a batch: the later one gets its limit too.
  const again = world((data) => (data === '0x0f' ? first : usual))
  await again.execute('0x01')
  await again.execute('0x01')
  const [c, d] = await Promise.all([again.execute('0x0f'), again.execute('0x01')])
  assert.ok(c.ok && d.ok)
  assert.ok(c.gasLimit >= covers && d.gasLimit >= covers, `${c.gasLimit} and ${d.gasLimit} against ${covers}`)
})

test('on a node without eth_simulateV1, eth_estimateGas answers under the same floor: the later of two executions of a shape is sent with what the first needed', async () => {
  const usual = 93_392n
  const first = usual + 34_200n
  const gasOf = (data: Hex) => (data === '0x0f' ? first : usual)
  const ctx = {
    chain: { executor: '0x00000000000000000000000000000000000000e1', chainId: 'eip155:31337' },
    state: {},
    gasByShape: new Map(),
    simulations: {
      async simulate() {
        throw Object.assign(new Error('the method eth_simulateV1 does not exist'), { code: -32601 })
      },
    },
    // The least limit each runs at, as eth_estimateGas searches for it.
    client: { estimateGas: async ({ data }: { data: Hex }) => neededFor(gasOf(data)) },
  } as unknown as EvmContext
  const execute = executeIn(ctx)
  const a = await execute('0x0f')
  const b = await execute('0x01')
  assert.ok(a.ok && b.ok)
  assert.ok(b.gasLimit >= neededFor(first) + gasMarginAtLeast, `${b.gasLimit}: room to run first`)
  assert.ok(
    neededFor(first) > limitFor(neededFor(usual), { cap: undefined } as never),
    'its own estimate would not cover it',
  )
})

test("one execution of a shape that used far more raises the shape's later limits by half at most: a stranger's call of a shared target and policy does not set everyone's", async () => {
  const usual = 93_392n
  // A loop its input drives, or a crafted call: 5 M gas, sent at its own limit.
  const costly = 5_000_000n
  const { asked, execute } = world((data) => (data === '0xff' ? costly : usual))
  await execute('0x01')
  await execute('0x01')
  const spent = await execute('0xff')
  assert.ok(spent.ok)
  const [, costlyHigh] = band(costly)
  assert.ok(spent.gasLimit <= costlyHigh, 'the costly one is sent at its own limit')
  const own = limitFor(neededFor(usual), { cap: undefined } as never)
  const bound = (own * 3n) / 2n
  const counts: number[] = []
  for (let i = 0; i < 3; i++) {
    const before = asked.length
    const s = await execute('0x01')
    assert.ok(s.ok)
    assert.ok(s.gasLimit >= own && s.gasLimit <= bound, `limit ${s.gasLimit}: within [${own}, ${bound}]`)
    counts.push(asked.length - before)
    // Only the one right after it is simulated at the costly one's limit (never sent with it).
    if (i > 0)
      for (const limit of asked.slice(before)) assert.ok(limit <= bound, `simulated at ${limit}, over ${bound}`)
  }
  // The one right after it: at the costly one's limit, then confirmed at its own; then once each.
  assert.deepEqual(counts, [2, 1, 1])
  // Two empty slots over an execution (the fleet's first wave) are still covered within the bound.
  const twoSlots = usual + 34_200n
  const fleet = world((data) => (data === '0x0f' ? twoSlots : usual))
  await fleet.execute('0x01')
  const [a, b] = await Promise.all([fleet.execute('0x0f'), fleet.execute('0x01')])
  assert.ok(a.ok && b.ok)
  assert.ok(b.gasLimit >= neededFor(twoSlots), `${b.gasLimit}: room to run first`)
})

test('a call simulated in a bundle is sent on that simulation, not confirmed alone: its bundle would close without it', async () => {
  // As in the test above: a nonce that opens a fresh storage word now and then. Alone, the first such
  // one is confirmed at its own limit; in a bundle, that confirmation (a transaction of its own, not
  // the bundle) would come after its bundle closed, and the calls after it would be simulated again.
  const usual = 93_392n
  const odd = 110_684n
  const order: Hex[] = ['0x01', '0x01', '0x01', '0x02', '0x01', '0x01', '0x02', '0x01']
  const run = async (bundled: boolean) => {
    const { asked, execute } = world((data) => (data === '0x02' ? odd : usual), { bundled })
    const counts: number[] = []
    for (const data of order) {
      const before = asked.length
      const s = await execute(data)
      assert.ok(s.ok)
      const [low] = band(data === '0x02' ? odd : usual)
      assert.ok(s.gasLimit >= low, `limit ${s.gasLimit} for ${data} under its own ${low}`)
      if (bundled) assert.ok(s.turn?.chunk, 'sent in the place its bundle gave it')
      counts.push(asked.length - before)
    }
    return counts
  }
  assert.deepEqual(await run(false), [2, 1, 1, 2, 1, 1, 1, 1])
  // The first: a new shape, at the cap, then confirmed. From then on one simulation each: its bundle's.
  assert.deepEqual(await run(true), [2, 1, 1, 1, 1, 1, 1, 1])
})
