// The gap check against a node that answers counts and transactions by hash: what it remembers of
// the relayer's transactions the node lost (a reorg), and for how long. The e2e cases against
// anvil are in test/evm/nonceGap.test.ts.
import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import { createPublicClient, custom, type Hex, keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createLogger } from '../../../logging/createLogger.ts'
import { createRelayer } from './createRelayer.ts'

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as Hex
const fees = { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }
const to = '0x00000000000000000000000000000000000000e1'

/** A node whose pool is a set of transaction hashes; `pending` is its count with the pool (a gap stops it). */
function world() {
  const node = { pending: 5, pool: new Map<Hex, Hex>(), broadcast: [] as Hex[] }
  const client = createPublicClient({
    transport: custom(
      {
        async request({ method, params }: { method: string; params: unknown[] }) {
          if (method === 'eth_getTransactionCount') return `0x${node.pending.toString(16)}`
          if (method === 'eth_getTransactionByHash') {
            const hash = params[0] as Hex
            // Only what viem reads to tell "found": a transaction object, else null.
            return node.pool.has(hash) ? { hash, input: '0x', nonce: '0x0', value: '0x0', type: '0x2' } : null
          }
          throw new Error(`unexpected ${method}`)
        },
      },
      { retryCount: 0 },
    ),
  })
  const relayer = createRelayer({
    account: privateKeyToAccount(key),
    client,
    chainId: 31337,
    logger: createLogger({ level: 'silent' }),
    broadcastMany: async (raws) =>
      raws.map((raw): PromiseSettledResult<unknown> => {
        node.broadcast.push(raw)
        node.pool.set(keccak256(raw), raw)
        node.pending++
        return { status: 'fulfilled', value: undefined }
      }),
  })
  const send = (data: Hex) => relayer.send({ to, data, gas: 50_000n, fees })
  return { node, relayer, send }
}

describe("the gap check remembers the relayer's transactions the node lost", () => {
  it('fills the gap under a transaction a peer gossips back after checks that found it missing', async () => {
    const { node, relayer, send } = world()
    const [first, second] = [await send('0x01'), await send('0x02')]
    assert.deepEqual([first.txNonce, second.txNonce], [5, 6])
    // A reorg: both gone from the node; checks find them missing.
    node.pool.clear()
    node.pending = 5
    for (let i = 0; i < 3; i++) assert.equal((await relayer.fillGap({ confirmAfterMs: 0 })).kind, 'none')
    // The second comes back queued above the empty nonce 5.
    node.pool.set(second.transactionHash, '0x')
    assert.deepEqual(await relayer.fillGap({ confirmAfterMs: 0 }), { kind: 'seen', nonce: 5 })
    const filled = await relayer.fillGap({ confirmAfterMs: 0 })
    assert.equal(filled.kind, 'filled')
    assert.ok(filled.kind === 'filled' && filled.again, 'with its own transaction at nonce 5, byte for byte')
    assert.equal(keccak256(node.broadcast.at(-1)!), first.transactionHash)
  })

  it('forgets one missing for ten minutes: a gossip after that goes unseen', async () => {
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 })
    try {
      const { node, relayer, send } = world()
      await send('0x01')
      const second = await send('0x02')
      node.pool.clear()
      node.pending = 5
      assert.equal((await relayer.fillGap({ confirmAfterMs: 0 })).kind, 'none') // found missing now
      mock.timers.tick(9 * 60_000)
      assert.equal((await relayer.fillGap({ confirmAfterMs: 0 })).kind, 'none') // still remembered
      mock.timers.tick(60_000)
      assert.equal((await relayer.fillGap({ confirmAfterMs: 0 })).kind, 'none') // forgotten now
      node.pool.set(second.transactionHash, '0x')
      assert.equal((await relayer.fillGap({ confirmAfterMs: 0 })).kind, 'none')
    } finally {
      mock.timers.reset()
    }
  })

  it('lets a send take the empty nonce once every transaction above it was found missing, more than one check asks after', async () => {
    const { node, relayer, send } = world()
    for (let i = 0; i < 12; i++) await send('0x01')
    assert.equal(relayer.nextNonce(), 17)
    node.pool.clear()
    node.pending = 5
    // Eight asked after per check: the first check leaves four not yet asked after.
    await relayer.fillGap({ confirmAfterMs: 0 })
    assert.equal(relayer.nextNonce(), 17)
    await relayer.fillGap({ confirmAfterMs: 0 })
    assert.equal(relayer.nextNonce(), undefined, 'read again from the node')
    assert.equal((await send('0x03')).txNonce, 5)
  })
})
