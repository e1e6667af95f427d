import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { chainInstance } from './chainInstance.ts'
import type { EvmContext } from './evmContext.ts'

/** The parts of a chain's context that reading its instance uses, with a node that counts anvil_metadata calls. */
function world() {
  const node = { metadataCalls: 0, instanceId: 'first' }
  const ctx = {
    chain: { chainId: 'eip155:31337' },
    log: pino({ level: 'silent' }),
    relayers: undefined,
    client: { getBlock: async () => ({ hash: '0xgenesis' }) },
    pool: {
      request: async ({ method }: { method: string }) => {
        assert.equal(method, 'anvil_metadata')
        node.metadataCalls++
        await new Promise((r) => setTimeout(r, 5))
        return { instanceId: node.instanceId }
      },
    },
    state: { instance: undefined, instanceRead: undefined, genesisHash: undefined, devNode: true },
  } as unknown as EvmContext
  return { node, ctx }
}

test('requests that find the instance stale at once share one read of the node', async () => {
  const { node, ctx } = world()
  const answers = await Promise.all(Array.from({ length: 20 }, () => chainInstance(ctx)))
  assert.deepEqual(new Set(answers), new Set(['0xgenesis/first']))
  assert.equal(node.metadataCalls, 1)
  // Within the reuse window, no read at all.
  await chainInstance(ctx)
  assert.equal(node.metadataCalls, 1)
})

test('a caller that asks for a fresh read (maxAgeMs 0) does not join a read already under way', async () => {
  const { node, ctx } = world()
  const shared = chainInstance(ctx, 1000)
  node.instanceId = 'second' // the chain is reset while the shared read is out
  const fresh = chainInstance(ctx, 0)
  assert.equal(await shared, '0xgenesis/second') // the node answers after the reset: both reads see it
  assert.equal(await fresh, '0xgenesis/second')
  assert.equal(node.metadataCalls, 2)
  // Once settled, the shared read is forgotten: a stale instance is read again.
  ctx.state.instance = { value: '0xgenesis/second', at: 0 }
  await chainInstance(ctx)
  assert.equal(node.metadataCalls, 3)
})
