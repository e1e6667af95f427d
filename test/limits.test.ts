// Rate limits per client (API key, else address) and security headers, on a real gateway.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { hashApiKey } from '../src/auth/createApiKeyCheck.ts'
import { assertCommonHeaders } from './support/assertCommonHeaders.ts'
import { demoIntent, post, request, startTestGateway, startWorld, type TestGateway, type World } from './support/testGateway.ts'

const keyA = 'agent-a-key-0123456789abcdef'
const keyB = 'agent-b-key-0123456789abcdef'

describe('limits and security headers', () => {
  let world: World
  let limited: TestGateway

  before(async () => {
    world = await startWorld()
    limited = await startTestGateway({
      chains: [world.devnet.chain],
      rateLimit: { max: 3, windowMs: 60_000 },
      auth: { keyHashes: [hashApiKey(keyA), hashApiKey(keyB)], requireForValidate: false },
    })
  })
  after(async () => {
    await limited?.close()
    await world?.stop()
  })

  it('answers 429 (0xF6) with Retry-After past the limit, per client, and leaves health alone', async () => {
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet))).status)
    assert.deepEqual(statuses, [200, 200, 200, 429, 429])
    const res = await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet))
    assert.equal(res.status, 429)
    assertCommonHeaders(res, { status: '0xF6' })
    assert.ok(Number(res.headers.get('retry-after')) >= 1 && Number(res.headers.get('retry-after')) <= 60)
    assert.equal(res.body.title, 'Too many requests')
    assert.match(res.body.detail, /^at most 3 requests per 60 s per client; retry after/)

    // Each API key is its own client, whatever address it comes from.
    for (let i = 0; i < 3; i++) assert.equal((await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet), { authorization: `Bearer ${keyA}` })).status, 200)
    assert.equal((await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet), { authorization: `Bearer ${keyA}` })).status, 429)
    assert.equal((await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet), { authorization: `Bearer ${keyB}` })).status, 200)

    for (let i = 0; i < 5; i++) assert.equal((await request(limited.baseUrl, '/health')).status, 200)
  })

  it('sets security headers on every response and offers no CORS', async () => {
    for (const res of [await request(limited.baseUrl, '/health'), await request(world.gateway.baseUrl, '/nope'), await post(world.gateway.baseUrl, '/intents/validate', demoIntent(world.devnet))]) {
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN')
      assert.ok(res.headers.get('content-security-policy'))
      assert.equal(res.headers.get('access-control-allow-origin'), null)
    }
    const preflight = await request(world.gateway.baseUrl, '/intents/validate', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
    assert.equal(preflight.headers.get('access-control-allow-origin'), null)
  })
})
