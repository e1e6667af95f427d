// DNS rebinding (the MCP conformance suite's dns-rebinding-protection scenario): a page on another
// site that points its own host name at the gateway's address calls /mcp naming its host in Host
// and its origin in Origin. /mcp serves only its own hosts (PUBLIC_URL's; outside production the
// loopback names with the listening port) and every route refuses a foreign Origin: 403 (0x10)
// with a problem type of its own, before anything runs. Agents send no Origin, and are served.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { rawRequest } from '../support/rawRequest.ts'
import { testApp } from '../support/testApp.ts'
import type { HttpResult } from '../support/testGateway.ts'

const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })

/** POST /mcp (tools/list) written byte for byte, so that Host is what the test says. */
function mcp(baseUrl: string, host: string, origin?: string): Promise<HttpResult> {
  return rawRequest(
    baseUrl,
    [
      'POST /mcp HTTP/1.1',
      `Host: ${host}`,
      ...(origin ? [`Origin: ${origin}`] : []),
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Content-Length: ${Buffer.byteLength(toolsList)}`,
      'Connection: close',
      '',
      toolsList,
    ].join('\r\n'),
  )
}

function assertRefused(res: HttpResult, detail: RegExp) {
  assert.equal(res.status, 403, res.text)
  assert.equal(res.headers.get('x-erc1066-status'), '0x10')
  assert.equal(res.body.type, 'urn:intent-gateway:problem:foreign-host')
  assert.equal(res.body.erc1066Status, '0x10')
  assert.match(res.body.detail, detail)
  assert.equal(res.body.result, undefined, 'nothing of MCP ran')
}

async function start(
  options: { publicUrl?: string; production?: boolean; corsOrigins?: string[] } = {},
): Promise<{ app: FastifyInstance; baseUrl: string; port: number }> {
  const registry = createChainRegistry({ adapters: [], defaultChainId: undefined })
  const { production = false, ...server } = options
  const app = testApp({ production, server, execution: { receiptTimeoutMs: 1000 } }, { registry })
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, baseUrl, port: Number(new URL(baseUrl).port) }
}

describe('DNS rebinding: /mcp serves its own hosts and origins only', () => {
  let local: Awaited<ReturnType<typeof start>>
  before(async () => {
    local = await start()
  })
  after(async () => {
    await local?.app.close()
  })

  it('refuses a foreign Host on /mcp (outside production: only localhost, 127.0.0.1 and [::1] with the listening port)', async () => {
    assertRefused(
      await mcp(local.baseUrl, `evil.example:${local.port}`),
      new RegExp(
        `^the Host "evil\\.example:${local.port}" is not this gateway's: call it at http://127\\.0\\.0\\.1:${local.port}$`,
      ),
    )
    assertRefused(await mcp(local.baseUrl, 'evil.example'), /the Host "evil\.example"/)
    // A loopback name with another port is another site's (a rebinding page on another local port).
    assertRefused(await mcp(local.baseUrl, `127.0.0.1:${local.port + 1}`), /the Host/)
  })

  it('refuses a foreign Origin, on /mcp and on every other route, before anything runs', async () => {
    assertRefused(
      await mcp(local.baseUrl, `127.0.0.1:${local.port}`, `http://evil.example:${local.port}`),
      /^the Origin "http:\/\/evil\.example:\d+" is not this gateway's \(PUBLIC_URL\) nor one of CORS_ORIGINS$/,
    )
    assertRefused(await mcp(local.baseUrl, `127.0.0.1:${local.port}`, 'null'), /the Origin "null"/)
    const validate = await fetch(`${local.baseUrl}/intents/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: '{}',
    })
    assert.equal(validate.status, 403)
    assert.equal(((await validate.json()) as { type: string }).type, 'urn:intent-gateway:problem:foreign-host')
  })

  it('serves a request without Origin (agents send none), and one from its own local origin', async () => {
    for (const host of [`127.0.0.1:${local.port}`, `localhost:${local.port}`, `[::1]:${local.port}`]) {
      const res = await mcp(local.baseUrl, host)
      assert.equal(res.status, 200, `${host}: ${res.text}`)
      assert.ok(res.body.result.tools.some((t: { name: string }) => t.name === 'explain_status'))
    }
    assert.equal((await mcp(local.baseUrl, `localhost:${local.port}`, `http://localhost:${local.port}`)).status, 200)
  })

  it("in production serves PUBLIC_URL's host and origin and CORS_ORIGINS only, not the loopback names", async () => {
    const prod = await start({
      publicUrl: 'https://gateway.example',
      production: true,
      corsOrigins: ['https://app.example'],
    })
    try {
      assert.equal((await mcp(prod.baseUrl, 'gateway.example')).status, 200)
      assert.equal((await mcp(prod.baseUrl, 'gateway.example:443', 'https://gateway.example')).status, 200)
      assert.equal((await mcp(prod.baseUrl, 'gateway.example', 'https://app.example')).status, 200)
      assertRefused(
        await mcp(prod.baseUrl, `127.0.0.1:${prod.port}`),
        /^the Host "127\.0\.0\.1:\d+" is not this gateway's: call it at https:\/\/gateway\.example$/,
      )
      assertRefused(await mcp(prod.baseUrl, 'gateway.example', `http://localhost:${prod.port}`), /the Origin/)
      // The Host check is /mcp's: a health probe names the pod's address.
      assert.equal((await fetch(`${prod.baseUrl}/health`)).status, 200)
    } finally {
      await prod.app.close()
    }
  })
})
