// POST /mcp against a real gateway on anvil, through the MCP SDK's own client over Streamable
// HTTP: the tools and their schemas (the routes' own), each tool answering exactly as its HTTP
// route does, API keys and the rate limit on /mcp itself and on the tools' routes.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { parseEther, toFunctionSelector } from 'viem'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { intentSchema } from '../../src/intents/intentSchema.ts'
import { getStatusCode } from '../../src/status/statusCodes.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { expectedSigning } from '../support/expectedSigning.ts'
import { testApp } from '../support/testApp.ts'
import {
  demoIntent,
  post,
  request,
  signedIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

const chainId = 'eip155:31337'
const apiKey = 'an-mcp-test-key-of-enough-length-01'

type ToolResult = {
  isError?: boolean
  structuredContent?: any
  content: Array<{ type: string; text?: string }>
  _meta?: Record<string, unknown>
}

async function connect(baseUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'intent-gateway-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }))
  return client
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<ToolResult> {
  const result = (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult
  // The text is the structured content, for clients that read text only.
  if (result.structuredContent) assert.deepEqual(JSON.parse(result.content[0]!.text!), result.structuredContent)
  return result
}

/** The headers of an HTTP answer that a tool result repeats. */
function keptHeaders(headers: Headers): Record<string, string> {
  const names = [
    'x-erc1066-status',
    'x-status-code',
    'x-intent-hash',
    'x-chain-type',
    'x-chain-id',
    'x-payment-required',
    'location',
    'retry-after',
    'www-authenticate',
    'payment-required',
    'payment-response',
  ]
  return Object.fromEntries(names.flatMap((n) => (headers.get(n) !== null ? [[n, headers.get(n)!]] : [])))
}

/** A raw JSON-RPC POST to /mcp, as any client would send it. */
function rawMcp(baseUrl: string, message: unknown, headers: Record<string, string> = {}) {
  return request(baseUrl, '/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify(message),
  })
}

describe('MCP server at /mcp', () => {
  let world: World
  let client: Client

  before(async () => {
    world = await startWorld()
    client = await connect(world.gateway.baseUrl)
  })
  after(async () => {
    await client?.close()
    await world?.stop()
  })

  it("lists the five tools, their input schemas taken from the routes' intent schema", async () => {
    const { tools } = await client.listTools()
    assert.deepEqual(
      tools.map((t) => t.name),
      ['validate_intent', 'execute_intent', 'get_intent', 'list_chains', 'explain_status'],
    )
    const { $id: _, ...intent } = intentSchema
    for (const name of ['validate_intent', 'execute_intent']) {
      const tool = tools.find((t) => t.name === name)!
      assert.deepEqual(tool.inputSchema.properties!.intent, JSON.parse(JSON.stringify(intent)))
      assert.deepEqual(tool.inputSchema.required, ['intent'])
      assert.deepEqual(tool.outputSchema!.required, ['httpStatus', 'erc1066Status', 'headers', 'body'])
    }
    assert.equal(tools.find((t) => t.name === 'execute_intent')!.annotations!.readOnlyHint, false)
    assert.equal(tools.find((t) => t.name === 'validate_intent')!.annotations!.readOnlyHint, true)
  })

  it('validate_intent answers as POST /intents/validate: 200 (0x01), 403 (0x10), 402 (0x54) with the PaymentRequired', async () => {
    const intent = demoIntent(world.devnet, { nonce: '3' })
    const http = await post(world.gateway.baseUrl, '/intents/validate', intent, { 'x-chain-id': '31337' })
    assert.equal(http.status, 200)
    const ok = await call(client, 'validate_intent', { intent, chainId: '31337' })
    assert.equal(ok.isError, undefined)
    assert.deepEqual(ok.structuredContent, {
      httpStatus: 200,
      erc1066Status: '0x01',
      headers: keptHeaders(http.headers),
      body: http.body,
    })
    assert.equal(ok.structuredContent.body.status, '0x01')
    assert.equal(ok.structuredContent.headers['x-chain-id'], chainId)

    const disallowed = demoIntent(world.devnet, { data: toFunctionSelector('fail(string)') })
    const refused = await call(client, 'validate_intent', { intent: disallowed })
    assert.equal(refused.isError, true)
    assert.equal(refused.structuredContent.httpStatus, 403)
    assert.equal(refused.structuredContent.erc1066Status, '0x10')
    const httpRefused = await post(world.gateway.baseUrl, '/intents/validate', disallowed)
    assert.deepEqual(refused.structuredContent.body, httpRefused.body)
    assert.equal(refused.structuredContent.body.statusName, 'DISALLOWED')

    const overCap = await call(client, 'validate_intent', {
      intent: demoIntent(world.devnet, { value: parseEther('5').toString() }),
    })
    assert.equal(overCap.isError, true)
    const { httpStatus, erc1066Status, headers, body, ...paymentRequired } = overCap.structuredContent
    assert.equal(httpStatus, 402)
    assert.equal(erc1066Status, '0x54')
    assert.equal(headers['x-payment-required'], 'true')
    // x402's MCP transport: the PaymentRequired itself at the top of structuredContent.
    assert.deepEqual(paymentRequired, body.paymentRequired)
    assert.deepEqual(JSON.parse(Buffer.from(headers['payment-required'], 'base64').toString()), body.paymentRequired)
    assert.equal(paymentRequired.x402Version, 2)
    assert.deepEqual(paymentRequired.accepts, [])
    assert.equal(paymentRequired.extensions.deposit.limit, 'policy', 'above the per-intent cap: no deposit helps')
  })

  it("refuses bad input naming the field: the route's own messages for the intent, the tool's for its arguments", async () => {
    const typo = { ...demoIntent(world.devnet), validBfore: '1' }
    const bad = await call(client, 'validate_intent', { intent: typo })
    const http = await post(world.gateway.baseUrl, '/intents/validate', typo)
    assert.equal(bad.isError, true)
    assert.equal(bad.structuredContent.httpStatus, 400)
    assert.equal(bad.structuredContent.erc1066Status, '0xA0')
    assert.deepEqual(bad.structuredContent.body, http.body)
    assert.deepEqual(
      bad.structuredContent.body.errors.map((e: any) => e.field),
      ['validBfore'],
    )

    const missing = await call(client, 'validate_intent', { chainId: 31337 })
    assert.equal(missing.isError, true)
    assert.equal(missing.structuredContent.httpStatus, 400)
    assert.deepEqual(missing.structuredContent.body.errors, [
      { field: 'intent', message: 'is required' },
      { field: 'chainId', message: 'must be a string' },
    ])
    assert.equal(missing.structuredContent.body.title, 'The arguments of validate_intent are not valid')

    const stray = await call(client, 'get_intent', { intentHash: 'abc', extra: true })
    assert.deepEqual(
      stray.structuredContent.body.errors.map((e: any) => e.field),
      ['intentHash', 'extra'],
    )

    const payment = await call(
      client,
      'execute_intent',
      { intent: demoIntent(world.devnet) },
      { 'x402/payment': 'not-an-object' },
    )
    assert.deepEqual(payment.structuredContent.body.errors, [
      { field: '_meta.x402/payment', message: 'must be an x402 PaymentPayload object' },
    ])
  })

  it('execute_intent executes a signed intent once (200, 0x11), then replays it (200, replayed); get_intent reads it back; unsigned: 401 (0xE5) with signing', async () => {
    const signed = await signedIntent(world.devnet, { nonce: '11' })
    const executed = await call(client, 'execute_intent', { intent: signed })
    assert.equal(executed.isError, undefined, JSON.stringify(executed.structuredContent))
    assert.equal(executed.structuredContent.httpStatus, 200)
    assert.equal(executed.structuredContent.erc1066Status, '0x11')
    const body = executed.structuredContent.body
    assert.equal(body.state, 'mined')
    const receipt = await world.clients.publicClient.getTransactionReceipt({ hash: body.transactionHash })
    assert.equal(receipt.status, 'success')
    assert.equal(body.blockNumber, receipt.blockNumber.toString())
    const intentHash = executed.structuredContent.headers['x-intent-hash']
    assert.equal(body.intentHash, intentHash)

    const again = await call(client, 'execute_intent', { intent: signed })
    assert.equal(again.isError, undefined)
    assert.equal(again.structuredContent.httpStatus, 200)
    assert.equal(again.structuredContent.erc1066Status, '0x11')
    assert.equal(again.structuredContent.body.replayed, true)
    assert.equal(again.structuredContent.body.transactionHash, body.transactionHash)

    const readBack = await call(client, 'get_intent', { intentHash })
    assert.equal(readBack.structuredContent.httpStatus, 200)
    const http = await request(world.gateway.baseUrl, `/intents/${intentHash}`)
    assert.deepEqual(readBack.structuredContent.body, http.body)
    // GET adds the outcome in the other ecosystems' words (§18): the same words tasks/get uses.
    assert.deepEqual(readBack.structuredContent.body, {
      ...body,
      statusWords: { taskState: 'completed', relayerStatus: 200, relayerMeaning: 'included and successful' },
    })

    const unknown = await call(client, 'get_intent', { intentHash: `0x${'ab'.repeat(32)}` })
    assert.equal(unknown.structuredContent.httpStatus, 404)
    assert.equal(unknown.isError, true)

    const unsigned = demoIntent(world.devnet, { nonce: '12' })
    const needsSignature = await call(client, 'execute_intent', { intent: unsigned })
    assert.equal(needsSignature.structuredContent.httpStatus, 401)
    assert.equal(needsSignature.structuredContent.erc1066Status, '0xE5')
    assert.deepEqual(
      needsSignature.structuredContent.body.signing,
      expectedSigning(world.devnet.contracts.executor, { ...unsigned }),
    )
  })

  it('list_chains answers as GET /chains and GET /chains/{chainId} (421 for a chain not served)', async () => {
    const all = await call(client, 'list_chains', {})
    const http = await request(world.gateway.baseUrl, '/chains')
    assert.deepEqual(all.structuredContent.body, http.body)
    assert.deepEqual(
      all.structuredContent.body.chains.map((c: any) => c.chainId),
      [chainId],
    )
    const one = await call(client, 'list_chains', { chainId: '31337' })
    assert.equal(one.structuredContent.body.chainId, chainId)
    const elsewhere = await call(client, 'list_chains', { chainId: 'eip155:1' })
    assert.equal(elsewhere.isError, true)
    assert.equal(elsewhere.structuredContent.httpStatus, 421)
    assert.equal(elsewhere.structuredContent.erc1066Status, '0xA2')
  })

  it('explain_status explains codes as the status table does', async () => {
    for (const [code, httpStatus, name] of [
      ['0x10', 403, 'DISALLOWED'],
      ['0x54', 402, 'INSUFFICIENT_FUNDS'],
      ['0xe5', 401, undefined],
      ['0x22', 409, 'NONCE_USED'],
      ['0x77', 502, undefined],
    ] as const) {
      const result = await call(client, 'explain_status', { code })
      const entry = getStatusCode(Number.parseInt(code.slice(2), 16))
      assert.equal(result.isError, undefined)
      assert.equal(result.structuredContent.httpStatus, httpStatus, code)
      assert.deepEqual(result.structuredContent, {
        code: entry.hex,
        statusName: entry.statusName,
        description: entry.description,
        httpStatus,
        reserved: entry.reserved,
        httpMeaning: result.structuredContent.httpMeaning,
      })
      if (name) assert.equal(result.structuredContent.statusName, name)
      assert.ok(result.structuredContent.httpMeaning.length > 0)
    }
    const bad = await call(client, 'explain_status', { code: '16' })
    assert.equal(bad.isError, true)
    assert.equal(bad.structuredContent, undefined)
    const problem = JSON.parse(bad.content[0]!.text!)
    assert.equal(problem.httpStatus, 400)
    assert.deepEqual(problem.body.errors, [
      { field: 'code', message: 'must be the code as X-ERC1066-Status writes it: 0x + two hex digits, e.g. 0x10' },
    ])
  })

  it('refuses an unknown tool with a JSON-RPC error', async () => {
    await assert.rejects(client.callTool({ name: 'drain_wallet', arguments: {} }), /Unknown tool: drain_wallet/)
  })

  it('answers /mcp with the common headers, and GET and DELETE with 405 (stateless: no stream, no session)', async () => {
    const res = await rawMcp(world.gateway.baseUrl, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'explain_status', arguments: { code: '0x01' } },
    })
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x01' })
    assert.equal(res.body.id, 7)
    assert.equal(res.body.result.structuredContent.statusName, 'SUCCESS')
    for (const method of ['GET', 'DELETE']) {
      const refused = await request(world.gateway.baseUrl, '/mcp', { method, headers: { accept: 'text/event-stream' } })
      assert.equal(refused.status, 405)
      assert.equal(refused.headers.get('allow'), 'POST')
      assertCommonHeaders(refused, { status: '0xA1' })
      assert.equal(refused.body.errors[0].field, 'method')
    }
    // Not JSON-RPC: the transport's own JSON-RPC error, still with the common headers. JSON that is
    // not a JSON-RPC message is an Invalid Request (-32600) in JSON-RPC 2.0, as the v2 SDK answers
    // it (the v1 SDK answered -32700, Parse error, for JSON it had parsed).
    const notRpc = await rawMcp(world.gateway.baseUrl, { hello: 'world' })
    assert.equal(notRpc.status, 400)
    assert.equal(notRpc.body.error.code, -32600)
    assertCommonHeaders(notRpc, { status: '0xA0' })
    const notJson = await request(world.gateway.baseUrl, '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{',
    })
    assert.equal(notJson.status, 400)
    assert.equal(notJson.body.errors[0].field, 'body')
  })

  describe('with API keys and a rate limit', () => {
    let keyed: TestGateway
    before(async () => {
      keyed = await startTestGateway({
        chains: [world.devnet.chain],
        auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
        rateLimit: { max: 3, windowMs: 60_000 },
      })
    })
    after(async () => {
      await keyed?.close()
    })

    it('refuses a wrong key on /mcp itself; without a key, execute_intent is refused as over HTTP; with the key it runs', async () => {
      await assert.rejects(connect(keyed.baseUrl, { authorization: 'Bearer not-the-key-at-all-0000000000' }), /401/)
      const wrong = await rawMcp(
        keyed.baseUrl,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { authorization: 'Bearer not-the-key-at-all-0000000000' },
      )
      assert.equal(wrong.status, 401)
      assert.match(wrong.headers.get('www-authenticate') ?? '', /Bearer/)
      assert.doesNotMatch(wrong.text, /tools|jsonrpc/)
    })

    it("counts an /mcp request of one tool call once against the client's limit (the tool's route call is not counted again), then 429 (0xF6)", async () => {
      const headers = { authorization: `Bearer ${apiKey}` }
      const signed = await signedIntent(world.devnet, { nonce: '21' })
      const keyless = await rawMcp(keyed.baseUrl, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'execute_intent', arguments: { intent: signed } },
      })
      assert.equal(keyless.status, 200, keyless.text)
      const refused = keyless.body.result
      assert.equal(refused.isError, true)
      assert.equal(refused.structuredContent.httpStatus, 401)
      assert.match(refused.structuredContent.headers['www-authenticate'], /Bearer realm="intent-gateway"/)

      // The key's own budget: 3 requests a minute.
      for (const id of [1, 2]) {
        const res = await rawMcp(
          keyed.baseUrl,
          {
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: {
              name: 'validate_intent',
              arguments: { intent: demoIntent(world.devnet, { nonce: String(30 + id) }) },
            },
          },
          headers,
        )
        assert.equal(res.status, 200, res.text)
        assert.equal(
          res.body.result.structuredContent.httpStatus,
          200,
          'the route call is not counted against the limit',
        )
      }
      const executed = await rawMcp(
        keyed.baseUrl,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'execute_intent', arguments: { intent: signed } },
        },
        headers,
      )
      assert.equal(executed.body.result.structuredContent.httpStatus, 200, executed.text)
      assert.equal(executed.body.result.structuredContent.erc1066Status, '0x11')
      const limited = await rawMcp(keyed.baseUrl, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, headers)
      assert.equal(limited.status, 429)
      assertCommonHeaders(limited, { status: '0xF6' })
      assert.ok(Number(limited.headers.get('retry-after')) >= 1)
      // The same client's HTTP requests share the budget.
      assert.equal((await post(keyed.baseUrl, '/intents/validate', demoIntent(world.devnet), headers)).status, 429)
    })
  })

  it('tells an agent paying a price over MCP to pay in _meta["x402/payment"], not with an HTTP header', async () => {
    const priced = await startTestGateway({ chains: [world.devnet.chain], payments: world.devnet.payments })
    const pricedClient = await connect(priced.baseUrl)
    try {
      // Over HTTP the route says to send PAYMENT-SIGNATURE, as it should.
      const overHttp = await post(
        priced.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '900' }),
      )
      assert.equal(overHttp.status, 402, overHttp.text)
      assert.match(overHttp.body.detail, /PAYMENT-SIGNATURE/)

      const result = await call(pricedClient, 'execute_intent', {
        intent: await signedIntent(world.devnet, { nonce: '900' }),
      })
      assert.equal(result.structuredContent.httpStatus, 402)
      assert.equal(result.structuredContent.erc1066Status, '0x55')
      const { detail } = result.structuredContent.body
      assert.equal(
        detail,
        'pay with x402: call the tool again with the PaymentPayload for one of `accepts` in `_meta["x402/payment"]`',
      )
      for (const text of [detail, result.structuredContent.error, result.structuredContent.body.paymentRequired.error])
        assert.doesNotMatch(text, /PAYMENT-SIGNATURE|header/i, text)
      // What the agent pays with is unchanged: the same offer as the HTTP answer's.
      assert.deepEqual(result.structuredContent.accepts, overHttp.body.paymentRequired.accepts)
    } finally {
      await pricedClient.close()
      await priced.close()
    }
  })
})

describe('MCP turned off (MCP_ENABLED=false)', () => {
  it('serves no /mcp: 404 as any unknown route', async () => {
    const registry = createChainRegistry({ adapters: [], defaultChainId: undefined })
    const app = testApp(
      { server: { bodyLimit: 1024 }, execution: { receiptTimeoutMs: 1000 }, interfaces: { mcp: { enabled: false } } },
      { registry },
    )
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().title, 'No such route')
      assert.equal((await app.inject({ method: 'GET', url: '/mcp' })).statusCode, 404)
    } finally {
      await app.close()
    }
  })
})
