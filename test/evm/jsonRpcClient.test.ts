// The JSON-RPC client against servers that behave in the ways public endpoints do: refusing
// batches, answering HTTP errors, answering too slowly, answering with JSON-RPC errors.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem'
import { createJsonRpcClient } from '../../src/chains/createJsonRpcClient.ts'
import { startHttpServer, type TestServer } from '../support/startHttpServer.ts'

describe('createJsonRpcClient', () => {
  let server: TestServer
  const bodies: unknown[] = []

  before(async () => {
    server = await startHttpServer()
  })
  after(async () => {
    await server?.close()
  })

  function answerWith(
    fn: (call: { id: number; method: string; params: unknown[] }) => unknown,
    { refuseBatches = false } = {},
  ) {
    server.handle = (req, res) => {
      let text = ''
      req.on('data', (c) => (text += c))
      req.on('end', () => {
        const body = JSON.parse(text)
        bodies.push(body)
        const reply = Array.isArray(body)
          ? refuseBatches
            ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } }
            : body.map((c) => ({ jsonrpc: '2.0', id: c.id, ...(fn(c) as object) })).reverse() // out of order on purpose
          : { jsonrpc: '2.0', id: body.id, ...(fn(body) as object) }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply))
      })
    }
  }

  it('sends the calls of one turn as one batch and matches answers by id', async () => {
    answerWith((c) => ({ result: `${c.method}:${JSON.stringify(c.params)}` }))
    const client = createJsonRpcClient({ url: server.url, timeoutMs: 1000, spread: 1 })
    bodies.length = 0
    const results = await Promise.all([1, 2, 3].map((n) => client.request({ method: 'echo', params: [n] })))
    assert.deepEqual(results, ['echo:[1]', 'echo:[2]', 'echo:[3]'])
    assert.equal(bodies.length, 1)
    assert.ok(Array.isArray(bodies[0]))
    await client.close()
  })

  it('spreads a busy turn over several batches, so the node can run them in parallel', async () => {
    answerWith((c) => ({ result: c.params[0] }))
    const client = createJsonRpcClient({ url: server.url, timeoutMs: 1000, spread: 4 })
    bodies.length = 0
    const numbers = Array.from({ length: 10 }, (_, i) => i)
    assert.deepEqual(await Promise.all(numbers.map((n) => client.request({ method: 'x', params: [n] }))), numbers)
    assert.deepEqual(bodies.map((b) => (Array.isArray(b) ? b.length : 1)).sort(), [1, 3, 3, 3])
    await client.close()
  })

  it('sends a full queue before the turn ends, and a call marked alone at once in its own request', async () => {
    answerWith((c) => ({ result: c.params[0] }))
    const client = createJsonRpcClient({ url: server.url, timeoutMs: 1000, spread: 1, flushAt: 8 })
    bodies.length = 0
    const numbers = Array.from({ length: 20 }, (_, i) => i)
    const answers = Promise.all(numbers.map((n) => client.request({ method: 'x', params: [n] })))
    const alone = client.request({ method: 'x', params: ['alone'], alone: true })
    assert.deepEqual(await answers, numbers)
    assert.equal(await alone, 'alone')
    assert.deepEqual(
      bodies.map((b) => (Array.isArray(b) ? b.length : (b as { params: unknown[] }).params[0])).sort(),
      [4, 8, 8, 'alone'].sort(),
    )
    await client.close()
  })

  it('falls back to one call per request for a node that refuses batches', async () => {
    answerWith((c) => ({ result: c.params[0] }), { refuseBatches: true })
    const client = createJsonRpcClient({ url: server.url, timeoutMs: 1000 })
    assert.deepEqual(await Promise.all([1, 2].map((n) => client.request({ method: 'x', params: [n] }))), [1, 2])
    bodies.length = 0
    assert.deepEqual(await Promise.all([3, 4].map((n) => client.request({ method: 'x', params: [n] }))), [3, 4])
    assert.ok(
      bodies.every((b) => !Array.isArray(b)),
      'later calls go one by one',
    )
    await client.close()
  })

  it('sends a sequence at once as one batch in its order, or one call after the other to a node that refuses batches', async () => {
    answerWith((c) => (c.params[0] === 2 ? { error: { code: -32000, message: 'refused' } } : { result: c.params[0] }))
    const client = createJsonRpcClient({ url: server.url, timeoutMs: 1000, spread: 4, flushAt: 2 })
    bodies.length = 0
    const answers = await Promise.allSettled(
      client.sequence([1, 2, 3, 4, 5].map((n) => ({ method: 'x', params: [n] }))),
    )
    assert.deepEqual(
      answers.map((a) => (a.status === 'fulfilled' ? a.value : 'refused')),
      [1, 'refused', 3, 4, 5],
    )
    assert.equal(bodies.length, 1, 'one request, whatever spread and flushAt say')
    assert.deepEqual(
      (bodies[0] as Array<{ params: number[] }>).map((c) => c.params[0]),
      [1, 2, 3, 4, 5],
    )
    await client.close()

    answerWith((c) => ({ result: c.params[0] }), { refuseBatches: true })
    const oneByOne = createJsonRpcClient({ url: server.url, timeoutMs: 1000 })
    bodies.length = 0
    assert.deepEqual(
      await Promise.all(oneByOne.sequence([1, 2, 3].map((n) => ({ method: 'x', params: [n] })))),
      [1, 2, 3],
    )
    assert.deepEqual(
      bodies.slice(1).map((b) => (b as { params: number[] }).params[0]),
      [1, 2, 3],
      'after the refused batch, each call alone, in order',
    )
    await oneByOne.close()
  })

  it('raises viem errors: RpcRequestError with the revert data, HttpRequestError, TimeoutError', async () => {
    answerWith(() => ({ error: { code: 3, message: 'execution reverted', data: '0x1234' } }))
    const client = createJsonRpcClient({ url: server.url, timeoutMs: 300 })
    await assert.rejects(
      client.request({ method: 'eth_call' }),
      (err: unknown) =>
        err instanceof RpcRequestError &&
        (err as RpcRequestError & { data: unknown }).data === '0x1234' &&
        err.code === 3,
    )

    server.handle = (_req, res) => res.writeHead(429).end('slow down')
    await assert.rejects(
      client.request({ method: 'eth_call' }),
      (err: unknown) => err instanceof HttpRequestError && err.status === 429,
    )

    server.handle = () => {} // never answers
    await assert.rejects(client.request({ method: 'eth_call' }), (err: unknown) => err instanceof TimeoutError)
    await client.close()

    const refused = createJsonRpcClient({ url: 'http://127.0.0.1:9/', timeoutMs: 300 })
    await assert.rejects(refused.request({ method: 'eth_chainId' }), (err: unknown) => err instanceof HttpRequestError)
    await refused.close()
  })
})
