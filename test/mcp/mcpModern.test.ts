// POST /mcp in both revisions the gateway speaks, through the v2 SDK's own client: 2026-07-28
// (no initialize: server/discover, the `_meta` envelope on every request, Mcp-Method/Mcp-Name
// headers checked against the body, `resultType` on results) and 2025-11-25 (the initialize
// handshake), the same tools answering the same way in both; a version we do not speak is the
// SDK's version error listing ours. The v1 SDK's client is test/mcp/mcp.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { demoIntent, post, request, signedIntent, startWorld, type World } from '../support/testGateway.ts'

const modern = '2026-07-28'
const envelope = {
  'io.modelcontextprotocol/protocolVersion': modern,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> }

async function connect(baseUrl: string, mode: 'legacy' | { pin: string }): Promise<Client> {
  const client = new Client({ name: 'intent-gateway-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)))
  return client
}

/** A raw 2026-07-28 request: its envelope in `_meta`, the standard headers naming method and tool. */
function modernMcp(
  baseUrl: string,
  message: { id: number; method: string; params?: Record<string, unknown> },
  headers: Record<string, string> = {},
) {
  const name = typeof message.params?.name === 'string' ? { 'mcp-name': message.params.name } : {}
  return request(baseUrl, '/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern,
      'mcp-method': message.method,
      ...name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      ...message,
      params: { ...message.params, _meta: { ...envelope, ...(message.params?._meta as object) } },
    }),
  })
}

describe('MCP 2026-07-28 and 2025-11-25 on /mcp (v2 SDK client)', () => {
  let world: World
  let current: Client
  let previous: Client

  before(async () => {
    world = await startWorld()
    current = await connect(world.gateway.baseUrl, { pin: modern })
    previous = await connect(world.gateway.baseUrl, 'legacy')
  })
  after(async () => {
    await current?.close()
    await previous?.close()
    await world?.stop()
  })

  it('negotiates 2026-07-28 through server/discover and 2025-11-25 through initialize, with the same tools', async () => {
    assert.equal(current.getProtocolEra(), 'modern')
    assert.equal(current.getNegotiatedProtocolVersion(), modern)
    assert.equal(previous.getProtocolEra(), 'legacy')
    assert.equal(previous.getNegotiatedProtocolVersion(), '2025-11-25')
    const [now, before] = [await current.listTools(), await previous.listTools()]
    assert.deepEqual(
      now.tools.map((t) => t.name),
      ['validate_intent', 'execute_intent', 'get_intent', 'list_chains', 'explain_status'],
    )
    assert.deepEqual(
      now.tools.map((t) => [t.name, t.inputSchema, t.outputSchema]),
      before.tools.map((t) => [t.name, t.inputSchema, t.outputSchema]),
    )
  })

  it('answers a tool call as the route does in either revision; execute_intent runs once, then replays', async () => {
    const intent = demoIntent(world.devnet, { nonce: '7001' })
    const http = await post(world.gateway.baseUrl, '/intents/validate', intent, { 'x-chain-id': '31337' })
    for (const client of [current, previous]) {
      const result = (await client.callTool({
        name: 'validate_intent',
        arguments: { intent, chainId: '31337' },
      })) as ToolResult
      assert.equal(result.structuredContent.httpStatus, 200)
      assert.equal(result.structuredContent.erc1066Status, '0x01')
      assert.deepEqual(result.structuredContent.body, http.body)
    }
    const signed = await signedIntent(world.devnet, { nonce: '7002' })
    const executed = (await current.callTool({ name: 'execute_intent', arguments: { intent: signed } })) as ToolResult
    assert.equal(executed.structuredContent.httpStatus, 200, JSON.stringify(executed.structuredContent))
    assert.equal(executed.structuredContent.erc1066Status, '0x11')
    const replayed = (await previous.callTool({ name: 'execute_intent', arguments: { intent: signed } })) as ToolResult
    assert.equal(replayed.structuredContent.httpStatus, 200)
    assert.equal(replayed.structuredContent.body.replayed, true)
    assert.equal(replayed.structuredContent.body.transactionHash, executed.structuredContent.body.transactionHash)
  })

  it('answers server/discover and tools/call with resultType, and the common headers', async () => {
    const discover = await modernMcp(world.gateway.baseUrl, { id: 1, method: 'server/discover' })
    assert.equal(discover.status, 200, discover.text)
    assert.deepEqual(discover.body.result.supportedVersions, [modern])
    assert.deepEqual(discover.body.result.capabilities, {
      tools: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    })
    assert.equal(discover.body.result.resultType, 'complete')
    assert.equal(discover.body.result._meta['io.modelcontextprotocol/serverInfo'].name, 'intent-gateway')
    const call = await modernMcp(world.gateway.baseUrl, {
      id: 2,
      method: 'tools/call',
      params: { name: 'explain_status', arguments: { code: '0x10' } },
    })
    assert.equal(call.status, 200, call.text)
    assertCommonHeaders(call, { status: '0x01' })
    assert.equal(call.body.id, 2)
    assert.equal(call.body.result.resultType, 'complete')
    assert.equal(call.body.result.structuredContent.statusName, 'DISALLOWED')
  })

  it('refuses Mcp-Method or Mcp-Name headers that disagree with the body (-32020), before any tool runs', async () => {
    const signed = await signedIntent(world.devnet, { nonce: '7003' })
    const params = { name: 'execute_intent', arguments: { intent: signed } }
    const wrongMethod = await modernMcp(
      world.gateway.baseUrl,
      { id: 3, method: 'tools/call', params },
      { 'mcp-method': 'tools/list' },
    )
    assert.equal(wrongMethod.status, 400, wrongMethod.text)
    assert.equal(wrongMethod.body.error.code, -32020)
    const wrongName = await modernMcp(
      world.gateway.baseUrl,
      { id: 4, method: 'tools/call', params },
      { 'mcp-name': 'explain_status' },
    )
    assert.equal(wrongName.status, 400, wrongName.text)
    assert.equal(wrongName.body.error.code, -32020)
    // Nothing ran: the intent is unknown to the gateway.
    const hash = (await post(world.gateway.baseUrl, '/intents/validate', signed)).headers.get('x-intent-hash')!
    assert.equal((await request(world.gateway.baseUrl, `/intents/${hash}`)).status, 404)
  })

  it("answers a protocol version it does not speak with the SDK's version error listing its own", async () => {
    const unknown = await modernMcp(
      world.gateway.baseUrl,
      {
        id: 5,
        method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { 'mcp-protocol-version': '2099-01-01' },
    )
    assert.equal(unknown.status, 400, unknown.text)
    assert.equal(unknown.body.error.code, -32022)
    assert.deepEqual(unknown.body.error.data, { supported: [modern], requested: '2099-01-01' })
    // A 2025-era request naming an unknown version in its header: the 2025 transport's refusal.
    const old = await request(world.gateway.baseUrl, '/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '1999-01-01',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }),
    })
    assert.equal(old.status, 400, old.text)
    assert.match(old.body.error.message, /Unsupported protocol version: 1999-01-01 \(supported versions: .*2025-11-25/)
  })

  it('refuses arguments nested too deep with -32602 naming them, in 2026-07-28 too', async () => {
    const deep = JSON.parse(`${'{"a":'.repeat(50)}1${'}'.repeat(50)}`)
    const res = await modernMcp(world.gateway.baseUrl, {
      id: 7,
      method: 'tools/call',
      params: { name: 'validate_intent', arguments: { intent: deep } },
    })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.error.code, -32602)
    assert.equal(res.body.error.message, 'intent is nested more than 32 levels deep')
  })
})
