// Property-based: random and mutated bodies, headers, chain ids and methods at every endpoint.
// Whatever arrives: never a 5xx, never a crash, the common headers on every answer, and no
// transaction sent (execute is sent only intents that the validator refuses or that are malformed).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoIntent, startWorld, type World } from '../support/testGateway.ts'

const relayer = privateKeyToAccount(devnetAccounts.relayer).address
const runs = Number(process.env.PROPERTY_RUNS ?? 300)

describe('properties of every answer', () => {
  let world: World
  let tried = 0

  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    process.stdout.write(`# property inputs tried: ${tried}\n`)
    await world?.stop()
  })

  // Values that sit near the edges of what each field accepts.
  const edgy = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(
      '0',
      '-1',
      '1e3',
      '0x',
      '0x0',
      '0xzz',
      (2n ** 256n).toString(),
      (2n ** 256n - 1n).toString(),
      '9'.repeat(90),
      ' 1',
      '١',
      '__proto__',
      '${x}',
      '\u0000',
      'eip155:1',
    ),
    fc.stringMatching(/^0x[0-9a-fA-F]{0,80}$/),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  )
  const fields = [
    'sender',
    'target',
    'data',
    'value',
    'nonce',
    'validAfter',
    'validBefore',
    'policyId',
    'chainType',
    'validBfore',
    'constructor',
  ]
  // A valid intent with some fields replaced, removed or added; the validator then refuses it
  // (its selector is not allowed), so execute must never send anything.
  const mutatedIntent = fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...fields), edgy, { maxKeys: 3 }),
      remove: fc.subarray(fields.slice(0, 8)),
    })
    .map(({ replace, remove }) => {
      const intent: Record<string, unknown> = { ...demoIntent(world.devnet, { data: '0xdeadbeef' }), ...replace }
      for (const f of remove) delete intent[f]
      return JSON.stringify(intent)
    })
  const body = fc.oneof(
    mutatedIntent,
    fc.string(),
    fc.json(),
    fc.constantFrom('', '{', '[]', 'null', '{"__proto__":{"a":1}}', '{"a":'.repeat(50)),
  )
  const header = fc.option(
    fc.oneof(
      fc.constantFrom(
        '31337',
        'eip155:31337',
        '1',
        'eip155:1',
        'sui:mainnet',
        'solana:x',
        '0',
        '-1',
        'eip155:',
        ':',
        'a:b:c',
      ),
      fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    ),
    { nil: undefined },
  )
  const contentType = fc.option(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/problem+json',
      'multipart/form-data; boundary=x',
    ),
    { nil: undefined },
  )
  const path = fc.constantFrom(
    '/intents/validate',
    '/intents/execute',
    `/intents/0x${'1'.repeat(64)}`,
    '/intents/xyz',
    '/health',
    '/health/ready',
    '/status-codes',
    '/chains',
    '/chains/31337',
    '/chains/%00',
    '/nope',
    '/intents/validate/extra',
    '/intents/%zz',
    '/%69ntents/validate',
    `/chains/${'1'.repeat(120)}`,
    `/intents/0x${'f'.repeat(200)}`,
  )
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD')

  it(`answers ${runs} random requests without a 5xx, with the common headers, sending nothing`, async () => {
    const nonceBefore = await world.clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })
    await fc.assert(
      fc.asyncProperty(method, path, body, header, contentType, async (m, p, b, chainId, type) => {
        tried++
        const headers: Record<string, string> = {}
        if (chainId !== undefined) headers['x-chain-id'] = chainId
        if (type !== undefined) headers['content-type'] = type
        const withBody = m !== 'GET' && m !== 'HEAD'
        const res = await fetch(`${world.gateway.baseUrl}${p}`, {
          method: m,
          headers,
          ...(withBody ? { body: b } : {}),
        })
        const text = await res.text()
        assert.ok(res.status < 500 || res.status === 503, `${m} ${p} -> ${res.status} ${text.slice(0, 300)}`)
        assert.match(res.headers.get('x-erc1066-status') ?? '', /^0x[0-9A-F]{2}$/, `${m} ${p}: X-ERC1066-Status`)
        assert.equal(res.headers.get('x-status-code'), res.headers.get('x-erc1066-status'))
        assert.match(res.headers.get('x-intent-hash') ?? '', /^0x[0-9a-f]{64}$/)
        assert.equal(res.headers.get('x-payment-required'), res.status === 402 ? 'true' : 'false')
        assert.ok(res.headers.has('x-chain-id') && res.headers.has('x-chain-type'))
      }),
      { numRuns: runs },
    )
    const nonceAfter = await world.clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })
    assert.equal(nonceAfter, nonceBefore, 'no transaction was sent')
  })
})
