// API keys on a real gateway and chain: execute needs one, validate stays open unless
// configured otherwise, failures answer 401 (0xE4) with WWW-Authenticate and send nothing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import {
  demoIntent,
  post,
  signedIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

const key = 'agent-key-0123456789abcdef'
const otherKey = 'second-agent-key-fedcba9876543210'
const relayer = privateKeyToAccount(devnetAccounts.relayer).address

describe('API keys', () => {
  let world: World
  let gateway: TestGateway
  let strict: TestGateway
  const relayerNonce = () => world.clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })

  before(async () => {
    world = await startWorld()
    gateway = await startTestGateway({
      chains: [world.devnet.chain],
      auth: { keyHashes: [hashApiKey(key), hashApiKey(otherKey)], requireForValidate: false },
    })
    strict = await startTestGateway({
      chains: [world.devnet.chain],
      auth: { keyHashes: [hashApiKey(key)], requireForValidate: true },
    })
  })
  after(async () => {
    await strict?.close()
    await gateway?.close()
    await world?.stop()
  })

  it('answers 401 (0xE4) with WWW-Authenticate to an execute without a key, before looking at the body, sending nothing', async () => {
    const before = await relayerNonce()
    const raw = JSON.stringify(demoIntent(world.devnet, { nonce: '1' }))
    const res = await post(gateway.baseUrl, '/intents/execute', raw)
    assert.equal(res.status, 401)
    assertCommonHeaders(res, { status: '0xE4', intentHash: keccak256(stringToHex(raw)) })
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="intent-gateway"')
    assert.equal(res.body.title, 'An API key is required')
    assert.equal(res.body.detail, 'send it as Authorization: Bearer <key>')

    const badBody = await post(gateway.baseUrl, '/intents/execute', { nonsense: true })
    assert.equal(badBody.status, 401, 'no validation verdict for callers without a key')
    assert.equal(await relayerNonce(), before)
  })

  it('refuses a wrong or malformed key with error="invalid_token", never echoing it', async () => {
    for (const authorization of [
      `Bearer ${key}x`,
      `Basic ${Buffer.from(`u:${key}`).toString('base64')}`,
      'Bearer',
      `bearer  ${otherKey}-`,
    ]) {
      const res = await post(gateway.baseUrl, '/intents/execute', await signedIntent(world.devnet, { nonce: '2' }), {
        authorization,
      })
      assert.equal(res.status, 401, authorization)
      assertCommonHeaders(res, { status: '0xE4' })
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="intent-gateway", error="invalid_token"')
      assert.ok(!res.text.includes(key))
    }
  })

  it('executes with a valid key (any configured one, scheme in any case) and logs the key id, not the key', async () => {
    const res = await post(gateway.baseUrl, '/intents/execute', await signedIntent(world.devnet, { nonce: '3' }), {
      authorization: `bearer ${otherKey}`,
    })
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11' })
    const logs = gateway.logs.join('\n')
    assert.ok(logs.includes(`"key":"${hashApiKey(otherKey).toString('hex').slice(0, 8)}"`))
    for (const secret of [key, otherKey]) assert.ok(!logs.includes(secret))
  })

  it('leaves validate open unless REQUIRE_API_KEY_FOR_VALIDATE is set, but refuses a wrong key there too', async () => {
    assert.equal((await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet))).status, 200)
    assert.equal(
      (await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), { authorization: `Bearer ${key}` }))
        .status,
      200,
    )
    const wrong = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), {
      authorization: 'Bearer not-a-key-at-all-000000',
    })
    assert.equal(wrong.status, 401)
    assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="intent-gateway", error="invalid_token"')
    const closed = await post(strict.baseUrl, '/intents/validate', demoIntent(world.devnet))
    assert.equal(closed.status, 401)
    assertCommonHeaders(closed, { status: '0xE4' })
    assert.equal(
      (await post(strict.baseUrl, '/intents/validate', demoIntent(world.devnet), { authorization: `Bearer ${key}` }))
        .status,
      200,
    )
  })
})
