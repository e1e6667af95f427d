// An MCP execute's `_meta["intent-gateway/idempotency-key"]` reaches POST /intents/execute as the
// Idempotency-Key header (what an HTTP client sends), through the real /mcp route and route
// caller; a malformed one, or one on another tool, is refused before any route is called.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { createRouteCaller } from '../../src/http/createRouteCaller.ts'
import { registerMcpRoute } from '../../src/http/routes/mcp.ts'
import { createApiDocs } from '../../src/http/schemas/createApiDocs.ts'
import { registerSharedSchemas } from '../../src/http/schemas/httpSchemas.ts'
import type { ChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { runtimes } from '../../src/runtimes.ts'

const modern = '2026-07-28'
const meta = 'intent-gateway/idempotency-key'

describe('the MCP idempotency key', () => {
  let app: FastifyInstance
  const seen: Array<{ url: string; key: string | string[] | undefined }> = []

  before(async () => {
    app = Fastify()
    registerSharedSchemas(app)
    // The routes as execute and validate would be reached; each records the header it got.
    for (const url of ['/intents/execute', '/intents/validate'])
      app.post(url, async (request, reply) => {
        seen.push({ url, key: request.headers['idempotency-key'] })
        return reply.code(200).header('x-erc1066-status', '0x01').send({ status: '0x01' })
      })
    registerMcpRoute(app, {
      caller: createRouteCaller(app),
      version: 'test',
      docs: createApiDocs(runtimes),
      registry: {} as ChainRegistry,
    })
    await app.ready()
  })
  after(() => app.close())

  const call = (name: string, key: unknown) =>
    app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': modern,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: { intent: { sender: '0x01' } },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': modern,
            'io.modelcontextprotocol/clientInfo': { name: 'idem-test', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
            ...(key === undefined ? {} : { [meta]: key }),
          },
        },
      }),
    })

  it('sends it to the execute route as Idempotency-Key, and sends none when there is none', async () => {
    seen.length = 0
    const res = await call('execute_intent', 'order-42 retry/1')
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(JSON.parse(res.body).result.structuredContent.httpStatus, 200, res.body)
    assert.deepEqual(seen, [{ url: '/intents/execute', key: 'order-42 retry/1' }])
    await call('execute_intent', undefined)
    assert.deepEqual(seen[1], { url: '/intents/execute', key: undefined })
  })

  it('refuses a malformed key, or one on another tool, naming it, with no route called', async () => {
    seen.length = 0
    for (const [tool, key, message] of [
      ['execute_intent', '', /must not be empty/],
      ['execute_intent', 'x'.repeat(256), /must be at most 255 characters/],
      ['execute_intent', 'bad\nkey', /must be printable ASCII characters/],
      ['execute_intent', 42, /must be a string/],
      ['validate_intent', 'k1', /is taken by execute_intent only/],
    ] as const) {
      const res = await call(tool, key)
      const result = JSON.parse(res.body).result
      assert.equal(result.isError, true, res.body)
      assert.equal(result.structuredContent.httpStatus, 400)
      const [error] = result.structuredContent.body.errors
      assert.equal(error.field, `_meta.${meta}`)
      assert.match(error.message, message)
    }
    assert.deepEqual(seen, [], 'no route was called')
  })
})
