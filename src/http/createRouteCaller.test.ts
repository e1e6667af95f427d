import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import { createRouteCaller } from './createRouteCaller.ts'

describe('createRouteCaller', () => {
  it("sends the client's Authorization, X-Chain-Id (the tool's first), payment and address to the route, marked as in-process", async () => {
    const app = Fastify()
    const caller = createRouteCaller(app)
    let seen: { headers: Record<string, unknown>; ip: string; body: unknown; inProcess: boolean } | undefined
    app.post('/echo', async (request) => {
      seen = { headers: request.headers, ip: request.ip, body: request.body, inProcess: caller.isInProcess(request) }
      return { ok: true }
    })
    let outer: { inProcess: boolean; answer: unknown } | undefined
    app.post('/outer', async (request) => {
      const answer = await caller.call(request, {
        method: 'POST',
        url: '/echo',
        body: { a: 1 },
        paymentSignature: 'cGF5bWVudA==',
      })
      outer = { inProcess: caller.isInProcess(request), answer }
      return { ok: true }
    })
    try {
      await app.inject({
        method: 'POST',
        url: '/outer',
        remoteAddress: '192.0.2.7',
        headers: {
          host: 'gateway.example:8443',
          authorization: 'Bearer k',
          'x-chain-id': '31337',
          'x-intent-gateway-in-process': 'guessed',
        },
        payload: {},
      })
      assert.equal(outer!.inProcess, false, 'a client cannot claim to be in-process')
      assert.deepEqual(outer!.answer, {
        httpStatus: 200,
        headers: outer!.answer && (outer!.answer as any).headers,
        body: { ok: true },
      })
      assert.equal(seen!.inProcess, true)
      assert.equal(seen!.ip, '192.0.2.7')
      assert.deepEqual(seen!.body, { a: 1 })
      assert.equal(seen!.headers.authorization, 'Bearer k')
      assert.equal(seen!.headers.host, 'gateway.example:8443')
      assert.equal(seen!.headers['x-chain-id'], '31337')
      assert.equal(seen!.headers['payment-signature'], 'cGF5bWVudA==')
      assert.equal(seen!.headers['content-type'], 'application/json')

      // The tool's chain wins over the client's header.
      const request = { headers: { 'x-chain-id': '31337' }, ip: '192.0.2.8' } as never
      await caller.call(request, { method: 'POST', url: '/echo', body: {}, chainId: 'eip155:1' })
      assert.equal(seen!.headers['x-chain-id'], 'eip155:1')
      assert.equal(seen!.headers.authorization, undefined)
      assert.equal(seen!.headers['payment-signature'], undefined)
    } finally {
      await app.close()
    }
  })

  it('keeps a body that is not JSON as text', async () => {
    const app = Fastify()
    const caller = createRouteCaller(app)
    app.get('/text', async (_request, reply) => reply.type('text/plain').send('plain words'))
    app.get('/empty', async (_request, reply) => reply.code(204).send())
    try {
      const from = { headers: {}, ip: '127.0.0.1' } as never
      assert.deepEqual((await caller.call(from, { method: 'GET', url: '/text' })).body, { text: 'plain words' })
      const empty = await caller.call(from, { method: 'GET', url: '/empty' })
      assert.equal(empty.httpStatus, 204)
      assert.equal(empty.body, undefined)
    } finally {
      await app.close()
    }
  })
})
