// Rate limits per client (API key, else address) and security headers, on a real gateway.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import {
  demoIntent,
  post,
  request,
  rpc,
  signedIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

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
    for (let i = 0; i < 5; i++)
      statuses.push((await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet))).status)
    assert.deepEqual(statuses, [200, 200, 200, 429, 429])
    const res = await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet))
    assert.equal(res.status, 429)
    assertCommonHeaders(res, { status: '0xF6' })
    assert.ok(Number(res.headers.get('retry-after')) >= 1 && Number(res.headers.get('retry-after')) <= 60)
    assert.equal(res.body.title, 'Too many requests')
    assert.match(res.body.detail, /^at most 3 requests per 60 s per client; retry after/)

    // Each API key is its own client, whatever address it comes from.
    for (let i = 0; i < 3; i++)
      assert.equal(
        (
          await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet), {
            authorization: `Bearer ${keyA}`,
          })
        ).status,
        200,
      )
    assert.equal(
      (await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet), { authorization: `Bearer ${keyA}` }))
        .status,
      429,
    )
    assert.equal(
      (await post(limited.baseUrl, '/intents/validate', demoIntent(world.devnet), { authorization: `Bearer ${keyB}` }))
        .status,
      200,
    )

    for (let i = 0; i < 5; i++) assert.equal((await request(limited.baseUrl, '/health')).status, 200)
  })

  it('counts a request by the route it reaches, however its path is encoded', async () => {
    const gateway = await startTestGateway({
      chains: [world.devnet.chain],
      rateLimit: { max: 3, windowMs: 60_000 },
      auth: { keyHashes: [hashApiKey(keyA)], requireForValidate: false },
    })
    try {
      const intent = demoIntent(world.devnet)
      const statuses = []
      for (const path of [
        '/intents/validate',
        '/%69ntents/validate',
        '/intents/%76alidate',
        '/%69ntents/validate',
        '/intents/valid%61te',
      ]) {
        statuses.push((await post(gateway.baseUrl, path, intent)).status)
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429])
      const encoded = await post(gateway.baseUrl, '/%69ntents/%65xecute', intent)
      assert.equal(encoded.status, 429)
      assertCommonHeaders(encoded, { status: '0xF6' })

      // The same with a key, on execute (which needs one).
      const auth = { authorization: `Bearer ${keyA}`, 'x-chain-id': '31337' }
      for (let i = 0; i < 3; i++)
        assert.equal((await post(gateway.baseUrl, '/intents/validate', intent, auth)).status, 200)
      assert.equal(
        (await post(gateway.baseUrl, '/%69ntents/execute', demoIntent(world.devnet, { nonce: '91' }), auth)).status,
        429,
      )
    } finally {
      await gateway.close()
    }
  })

  it('counts requests refused for a wrong API key, so that guessing keys is throttled', async () => {
    const intent = demoIntent(world.devnet)
    const guesser = await startTestGateway({
      chains: [world.devnet.chain],
      rateLimit: { max: 3, windowMs: 60_000 },
      auth: { keyHashes: [hashApiKey(keyA)], requireForValidate: false },
    })
    try {
      const guesses = []
      for (let i = 0; i < 5; i++)
        guesses.push(
          (
            await post(guesser.baseUrl, '/intents/execute', intent, {
              authorization: `Bearer guess-${i}-0123456789abcdef`,
            })
          ).status,
        )
      assert.deepEqual(guesses, [401, 401, 401, 429, 429])
      const right = await post(guesser.baseUrl, '/intents/validate', intent, { authorization: `Bearer ${keyA}` })
      assert.equal(right.status, 200, 'a valid key is its own client, not the guessing address')
    } finally {
      await guesser.close()
    }
  })

  it('sets security headers on every response and offers no CORS unless configured', async () => {
    for (const res of [
      await request(limited.baseUrl, '/health'),
      await request(world.gateway.baseUrl, '/nope'),
      await post(world.gateway.baseUrl, '/intents/validate', demoIntent(world.devnet)),
    ]) {
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN')
      assert.ok(res.headers.get('content-security-policy'))
      assert.equal(res.headers.get('access-control-allow-origin'), null)
    }
    const preflight = await request(world.gateway.baseUrl, '/intents/validate', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    assert.equal(preflight.headers.get('access-control-allow-origin'), null)
  })
  it('answers CORS for the configured origins only, exposing the on-chain context headers', async () => {
    const app = 'https://app.example'
    const gateway = await startTestGateway({ chains: [world.devnet.chain], corsOrigins: [app] })
    try {
      const preflight = (origin: string) =>
        request(gateway.baseUrl, '/intents/execute', {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type, authorization, x-chain-id',
          },
        })
      const allowed = await preflight(app)
      assert.equal(allowed.status, 204)
      assert.equal(allowed.headers.get('access-control-allow-origin'), app)
      assert.match(allowed.headers.get('access-control-allow-methods') ?? '', /POST/)
      assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /x-chain-id/)
      // A browser agent may ask execute to answer once sent (RFC 7240), and read that it did.
      assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /\bprefer\b/)
      assert.equal((await preflight('https://evil.example')).headers.get('access-control-allow-origin'), null)

      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), { origin: app })
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('access-control-allow-origin'), app)
      for (const h of ['x-erc1066-status', 'x-intent-hash', 'x-chain-id', 'retry-after', 'preference-applied'])
        assert.match(res.headers.get('access-control-expose-headers') ?? '', new RegExp(h))
      assertCommonHeaders(res, { status: '0x01' })
      const other = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), {
        origin: 'https://evil.example',
      })
      assert.equal(other.headers.get('access-control-allow-origin'), null)
    } finally {
      await gateway.close()
    }
  })

  it('closes connections that send nothing, caps how many are open, and keeps /health answering', async () => {
    const idleTimeoutMs = 400
    const maxConnections = 30
    const gateway = await startTestGateway({ chains: [world.devnet.chain], idleTimeoutMs, maxConnections })
    const { port } = new URL(gateway.baseUrl)
    // Opens a connection that sends nothing; resolves when the gateway closes it (or after 8 s).
    const idle = () =>
      new Promise<{ ms: number; closedByGateway: boolean }>((resolve) => {
        const started = performance.now()
        const socket = connect(Number(port), '127.0.0.1')
        socket.on('error', () => undefined)
        socket.setTimeout(8000, () => socket.destroy()) // a gateway without the bound fails, not hangs
        socket.on('close', () =>
          resolve({ ms: performance.now() - started, closedByGateway: performance.now() - started < 7900 }),
        )
      })
    try {
      // Well under the cap: all are closed by the gateway once idle, and /health answers meanwhile.
      const first = Array.from({ length: 20 }, idle)
      await new Promise((r) => setTimeout(r, 100))
      const health = await request(gateway.baseUrl, '/health')
      assert.equal(health.status, 200)
      assertCommonHeaders(health, { status: '0x01' })
      for (const r of await Promise.all(first))
        assert.ok(
          r.closedByGateway && r.ms < idleTimeoutMs + 2000,
          `idle connection closed after ${Math.round(r.ms)} ms`,
        )

      // Over the cap: the extra connections are refused at once, and the held ones still time out.
      const second = Array.from({ length: maxConnections + 10 }, idle)
      const closed = await Promise.all(second)
      assert.ok(
        closed.every((r) => r.closedByGateway),
        'every connection was closed by the gateway',
      )
      assert.ok(
        closed.filter((r) => r.ms < idleTimeoutMs / 2).length >= 10,
        'connections over the cap are refused at once',
      )
      assert.equal(
        (await request(gateway.baseUrl, '/health')).status,
        200,
        'the gateway serves again once the idle ones are gone',
      )
      assert.ok(
        gateway.logs.some((l) => l.includes('connection limit reached')),
        'the refusals are logged',
      )

      // A keep-alive connection is closed once idle after its answer; a slow answer is not cut.
      const kept = await new Promise<{ text: string; ms: number }>((resolve) => {
        let text = ''
        let answeredAt = 0
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'))
        socket.on('data', (d) => {
          text += d.toString()
          answeredAt ||= performance.now()
        })
        socket.on('error', () => undefined)
        socket.setTimeout(8000, () => socket.destroy())
        socket.on('close', () => resolve({ text, ms: performance.now() - answeredAt }))
      })
      assert.match(kept.text, /^HTTP\/1\.1 200 /)
      assert.ok(
        kept.ms < idleTimeoutMs + 2000,
        `kept-alive connection closed ${Math.round(kept.ms)} ms after its answer`,
      )

      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
      try {
        const slow = post(gateway.baseUrl, '/intents/execute', await signedIntent(world.devnet, { nonce: '79' }), {
          'x-chain-id': '31337',
        })
        await new Promise((r) => setTimeout(r, idleTimeoutMs * 4))
        await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
        assert.equal((await slow).status, 200, 'a request in progress is never idle')
      } finally {
        await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      }
    } finally {
      await gateway.close()
    }
  })

  it('answers a request that arrives during shutdown with a 503 problem and the common headers', async () => {
    const gateway = await startTestGateway({ chains: [world.devnet.chain] })
    const { port } = new URL(gateway.baseUrl)
    const body = JSON.stringify(await signedIntent(world.devnet, { nonce: '80' }))
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    let closing: Promise<void> | undefined
    try {
      // An execute held open by an unmined transaction; shutdown starts; then another request
      // arrives on that same connection (still busy, so shutdown has not closed it).
      let socket: ReturnType<typeof connect> | undefined
      const answers = new Promise<string>((resolve) => {
        let text = ''
        socket = connect(Number(port), '127.0.0.1', () =>
          socket!.write(
            `POST /intents/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
          ),
        )
        socket.on('data', (d) => (text += d.toString()))
        socket.on('error', () => undefined)
        socket.setTimeout(10_000, () => socket!.destroy())
        socket.on('close', () => resolve(text))
      })
      await new Promise((r) => setTimeout(r, 300))
      closing = gateway.close()
      await new Promise((r) => setTimeout(r, 200))
      socket!.write('GET /chains HTTP/1.1\r\nHost: x\r\n\r\n')
      await new Promise((r) => setTimeout(r, 200))
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      const text = await answers
      const second = text.slice(text.indexOf('HTTP/1.1', 10))
      assert.match(text, /^HTTP\/1\.1 200 /, 'the execute in flight is answered')
      assert.match(second, /^HTTP\/1\.1 503 /, text)
      assert.match(second, /\r\nx-erc1066-status: 0x40\r\n/i)
      assert.match(second, /\r\nx-chain-id: eip155:31337\r\n/i)
      assert.match(second, /\r\ncontent-type: application\/problem\+json/i)
      assert.match(second, /"title":"The gateway is shutting down"/)
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await (closing ?? gateway.close())
    }
  })

  it('answers 408 and closes a connection whose request does not arrive in REQUEST_TIMEOUT_MS, sending nothing; a slow answer is not cut', async () => {
    const requestTimeoutMs = 500
    const gateway = await startTestGateway({ chains: [world.devnet.chain], requestTimeoutMs })
    const relayer = privateKeyToAccount(devnetAccounts.relayer).address
    const nonce = () => world.clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })
    const { port } = new URL(gateway.baseUrl)
    // Sends `head` and then nothing more; resolves with what came back and when the socket closed.
    const stall = (head: string) =>
      new Promise<{ text: string; ms: number }>((resolve) => {
        const started = performance.now()
        let text = ''
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(head))
        socket.on('data', (d) => (text += d.toString()))
        socket.on('close', () => resolve({ text, ms: performance.now() - started }))
        socket.on('error', () => undefined)
        socket.setTimeout(10_000, () => socket.destroy()) // a gateway without the timeout fails, not hangs
      })
    try {
      const before = await nonce()
      const body = JSON.stringify(demoIntent(world.devnet, { nonce: '77' }))
      const stalledBody = await stall(
        `POST /intents/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 40)}`,
      )
      const stalledHeaders = await stall('POST /intents/validate HTTP/1.1\r\nHost: x\r\nContent-Ty')
      for (const [what, r] of Object.entries({ stalledBody, stalledHeaders })) {
        assert.match(r.text, /^HTTP\/1\.1 408 /, what)
        // A deadline, not a speed claim: cut within the timeout plus its checking interval and slack.
        assert.ok(r.ms < requestTimeoutMs + 2000, `${what}: closed after ${Math.round(r.ms)} ms`)
      }
      assert.equal(await nonce(), before, 'nothing sent')

      // An execute that waits longer than the request timeout for its receipt still gets its answer.
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
      try {
        const slow = post(gateway.baseUrl, '/intents/execute', await signedIntent(world.devnet, { nonce: '78' }), {
          'x-chain-id': '31337',
        })
        await new Promise((r) => setTimeout(r, requestTimeoutMs * 3))
        await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
        assert.equal((await slow).status, 200)
      } finally {
        await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      }
    } finally {
      await gateway.close()
    }
  })
})
