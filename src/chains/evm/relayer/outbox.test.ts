import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createPublicClient, custom, type Hex, keccak256, parseTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createLogger } from '../../../logging/createLogger.ts'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import { createRelayer } from './createRelayer.ts'

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as Hex
const fees = { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }
const to = '0x00000000000000000000000000000000000000e1'

/** A node that answers the key's counts (`latest`: mined; `pending`: with its pool) and takes every broadcast unless told to refuse. */
function world() {
  const node = { latest: 0, pending: 0, refuse: false }
  const client = createPublicClient({
    transport: custom(
      {
        async request({ method, params }: { method: string; params: unknown[] }) {
          if (method === 'eth_getTransactionCount')
            return `0x${(params[1] === 'latest' ? node.latest : node.pending).toString(16)}`
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
      raws.map((): PromiseSettledResult<unknown> => {
        if (node.refuse) return { status: 'rejected', reason: new Error('insufficient funds for gas * price + value') }
        node.pending++
        return { status: 'fulfilled', value: undefined }
      }),
  })
  const send = (data: Hex) => relayer.send({ to, data, gas: 50_000n, fees })
  const nonces = () => relayer.unmined()?.map((c) => Number(c.nonce))
  return { node, relayer, send, nonces }
}

describe('the outbox keeps what the node may still mine', () => {
  it('from the nonce read that finds nothing of the key in the pool: each signed transaction, in nonce order, as it was signed, until a receipt at its nonce or above', async () => {
    const { node, relayer, send, nonces } = world()
    node.latest = node.pending = 5
    assert.equal(relayer.unmined(), undefined, 'nothing known before the first nonce read')
    const sent = [await send('0x01'), await send('0x02'), await send('0x03')]
    assert.deepEqual(nonces(), [5, 6, 7])
    const [first] = relayer.unmined()!
    const signed = parseTransaction(evmSignedExecution.rawTransaction(sent[0]!.transaction))
    assert.equal(first!.from, privateKeyToAccount(key).address)
    assert.equal(first!.to, to)
    assert.equal(first!.data, '0x01')
    assert.equal(first!.gas, '0xc350')
    assert.equal(first!.maxFeePerGas, '0x2')
    assert.equal(signed.nonce, 5)
    // Mined up to the second (its receipt): the first goes too.
    relayer.mined(sent[1]!.transactionHash)
    assert.deepEqual(nonces(), [7])
    relayer.mined(sent[2]!.transactionHash)
    assert.deepEqual(nonces(), [])
  })

  it('a transaction the node refused is not kept; a re-priced replacement takes its nonce’s place', async () => {
    const { node, relayer, send, nonces } = world()
    await send('0x01')
    node.refuse = true
    await assert.rejects(send('0x02'))
    assert.deepEqual(nonces(), [0])
    const raw = await privateKeyToAccount(key).signTransaction({
      chainId: 31337,
      type: 'eip1559',
      to,
      data: '0x',
      value: 0n,
      gas: 50_000n,
      nonce: 0,
      maxFeePerGas: 3n,
      maxPriorityFeePerGas: 2n,
    })
    relayer.sentElsewhere({ nonce: 0, hash: keccak256(raw), raw })
    assert.equal(relayer.unmined()![0]!.data, '0x')
    assert.deepEqual(nonces(), [0])
  })

  it('a transaction of the key in the pool that this instance did not sign leaves the pool unknown until it is mined; a resync forgets everything', async () => {
    const { node, relayer, send, nonces } = world()
    node.latest = 3
    node.pending = 4 // nonce 3 waits in the pool: sent before a restart
    await send('0x01')
    assert.equal(relayer.unmined(), undefined)
    await relayer.anchor()
    assert.equal(relayer.unmined(), undefined, 'still in the pool')
    node.latest = 4 // mined
    await relayer.anchor()
    assert.deepEqual(nonces(), [4])
    relayer.resync()
    assert.equal(relayer.unmined(), undefined)
    await send('0x02') // reads its nonce again: 4 and 5 in the pool (node.pending is 6), 4 unknown now
    assert.equal(relayer.unmined(), undefined)
  })

  it('past 1024 kept, the key’s pool is no longer known', async () => {
    const { relayer, send, nonces } = world()
    await send('0x01')
    const raw = evmSignedExecution.rawTransaction((await send('0x02')).transaction)
    for (let n = 2; n < 1024; n++) relayer.sentElsewhere({ nonce: n, hash: keccak256(raw), raw })
    assert.equal(nonces()?.length, 1024)
    relayer.sentElsewhere({ nonce: 1024, hash: keccak256(raw), raw })
    assert.equal(relayer.unmined(), undefined)
  })
})
