// The gateway names its version (package.json's, semver) where operators and agents look:
// GET /health, the OpenAPI document and the MCP handshake.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { testApp } from '../support/testApp.ts'

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

describe("the gateway's version", () => {
  let app: FastifyInstance

  before(async () => {
    const registry = createChainRegistry({ adapters: [], defaultChainId: undefined })
    app = testApp({ server: { bodyLimit: 1024 }, execution: { receiptTimeoutMs: 1000 } }, { registry })
    await app.ready()
  })
  after(async () => {
    await app?.close()
  })

  it('is semver', () => {
    assert.match(version, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/)
  })

  it("is in GET /health's body and the OpenAPI document", async () => {
    const health = await app.inject({ method: 'GET', url: '/health' })
    assert.equal(health.statusCode, 200)
    assert.equal(health.json().version, version)
    assert.equal((await app.inject({ method: 'GET', url: '/openapi.json' })).json().info.version, version)
  })

  it('is the version the MCP handshake names', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'versions-test', version: '1.0.0' },
        },
      }),
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().result.serverInfo, { name: 'intent-gateway', title: 'Intent Gateway', version })
  })
})
