// The limits of POST /mcp against a real gateway on anvil: every tools/call, batched or not,
// counts against the client's rate limit (the budget its HTTP requests use), in memory and in
// Redis; batches are bounded; arguments nested thousands deep are invalid params, not a crash.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { demoIntent, post, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const max = 5
const keys = {
  attacker: 'mcp-limits-attacker-key-000000000001',
  executor: 'mcp-limits-executor-key-000000000002',
  shared: 'mcp-limits-shared-key-00000000000003',
  other: 'mcp-limits-other-key-0000000000000004',
  batcher: 'mcp-limits-batcher-key-00000000000005',
}
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const relayer = privateKeyToAccount(devnetAccounts.relayer).address

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** A raw JSON-RPC POST to /mcp (a message, a batch, or JSON text as it is), as any client sends it. */
function rawMcp(baseUrl: string, message: unknown, headers: Record<string, string> = {}) {
  return request(baseUrl, '/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  })
}

const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})

/** How many times the gateway called the node's eth_call (the validator), from its own /metrics. */
async function ethCalls(baseUrl: string): Promise<number> {
  const { text } = await request(baseUrl, '/metrics')
  const line = text
    .split('\n')
    .find((l) => l.startsWith('intent_gateway_chain_rpc_duration_seconds_count{') && l.includes('method="eth_call"'))
  return line ? Number(line.split(' ').at(-1)) : 0
}

/** The tool results of the batch answers (HTTP 429s of whole /mcp requests carry none). */
function results(answers: Array<{ status: number; body: any }>): any[] {
  return answers.flatMap((a) => (a.status === 200 ? (a.body as any[]).map((m) => m.result) : []))
}

describe('MCP tool calls and the rate limit', () => {
  let devnet: Devnet
  let gateway: TestGateway

  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({
      chains: [devnet.chain],
      auth: { keyHashes: Object.values(keys).map(hashApiKey), requireForValidate: false },
      rateLimit: { max, windowMs: 60_000 },
    })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('answers at most RATE_LIMIT_MAX validator calls per window to batched validate_intent calls (8 batches of 30 and of 40)', async () => {
    // What one validation costs the node, measured by a client of its own.
    const before = await ethCalls(gateway.baseUrl)
    const one = await rawMcp(
      gateway.baseUrl,
      toolCall(1, 'validate_intent', { intent: demoIntent(devnet, { nonce: '900' }) }),
      bearer(keys.other),
    )
    assert.equal(one.body.result.structuredContent.httpStatus, 200, one.text)
    const perValidation = (await ethCalls(gateway.baseUrl)) - before
    assert.ok(perValidation >= 1)

    const start = await ethCalls(gateway.baseUrl)
    const answers = []
    for (let batch = 0; batch < 8; batch++) {
      const calls = Array.from({ length: 30 }, (_, i) =>
        toolCall(i, 'validate_intent', { intent: demoIntent(devnet, { nonce: String(1000 + batch * 100 + i) }) }),
      )
      answers.push(await rawMcp(gateway.baseUrl, calls, bearer(keys.attacker)))
    }
    const tools = results(answers)
    const answered = tools.filter((r) => r.structuredContent.httpStatus === 200)
    const limited = tools.filter((r) => r.structuredContent.httpStatus === 429)
    assert.equal(answered.length, max, 'the /mcp request pays for its first call, each further call counts one')
    assert.equal(limited.length, 30 - max)
    assert.equal(answered.length + limited.length, tools.length)
    // Once the budget is spent, the /mcp request itself is refused.
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 429, 429, 429, 429, 429, 429, 429],
    )
    for (const refused of limited) {
      assert.equal(refused.isError, true)
      assert.equal(refused.structuredContent.erc1066Status, '0xF6')
      assert.equal(refused.structuredContent.headers['x-erc1066-status'], '0xF6')
      assert.ok(Number(refused.structuredContent.headers['retry-after']) >= 1)
      assert.equal(refused.structuredContent.body.title, 'Too many requests')
    }
    // Side by side, validations may share one eth_call (multicall): at most one each, never more.
    const nodeCalls = (await ethCalls(gateway.baseUrl)) - start
    assert.ok(nodeCalls >= 1 && nodeCalls <= max * perValidation, `the node saw ${nodeCalls} eth_call`)

    // The attack as it was sent: batches of 40 are over the batch bound, and are
    // refused whole; nothing reaches the validator either way.
    const beforeForty = await ethCalls(gateway.baseUrl)
    const forty = []
    for (let batch = 0; batch < 8; batch++) {
      const calls = Array.from({ length: 40 }, (_, i) =>
        toolCall(i, 'validate_intent', { intent: demoIntent(devnet, { nonce: String(5000 + batch * 100 + i) }) }),
      )
      forty.push(await rawMcp(gateway.baseUrl, calls, bearer(keys.batcher)))
    }
    assert.ok(results(forty).filter((r) => r.structuredContent.httpStatus !== 429).length <= max)
    assert.ok((await ethCalls(gateway.baseUrl)) - beforeForty <= max * perValidation)
    assert.equal(forty[0]!.status, 400)
    assert.equal(forty[0]!.body.error.code, -32600)
    assert.equal(forty[0]!.body.error.message, 'Invalid Request: a batch holds at most 32 messages; this one holds 40')
    assertCommonHeaders(forty[0]!, { status: '0xA0' })
  })

  it('executes at most RATE_LIMIT_MAX batched execute_intent calls per window: the relayer sends RATE_LIMIT_MAX transactions', async () => {
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const nonceBefore = await publicClient.getTransactionCount({ address: relayer })
    const balanceBefore = await publicClient.getBalance({ address: relayer })
    const answers = []
    for (let batch = 0; batch < 3; batch++) {
      const intents = await Promise.all(
        Array.from({ length: 10 }, (_, i) => signedIntent(devnet, { nonce: String(20_000 + batch * 100 + i) })),
      )
      answers.push(
        await rawMcp(
          gateway.baseUrl,
          intents.map((intent, i) => toolCall(i, 'execute_intent', { intent })),
          bearer(keys.executor),
        ),
      )
    }
    const tools = results(answers)
    const executed = tools.filter((r) => r.structuredContent.httpStatus === 200)
    assert.equal(
      executed.length,
      max,
      JSON.stringify(
        tools.filter((r) => ![200, 429].includes(r.structuredContent.httpStatus)).map((r) => r.structuredContent.body),
      ),
    )
    for (const result of executed) assert.equal(result.structuredContent.erc1066Status, '0x11')
    assert.equal(tools.filter((r) => r.structuredContent.httpStatus === 429).length, 10 - max)
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 429, 429],
    )
    assert.equal(
      (await publicClient.getTransactionCount({ address: relayer })) - nonceBefore,
      max,
      'the relayer sent one transaction per admitted call',
    )
    assert.ok((await publicClient.getBalance({ address: relayer })) < balanceBefore)
  })

  it("shares one budget between a client's HTTP requests and its MCP calls; the tool's 429 is the route's; another client is not affected", async () => {
    for (const nonce of ['1', '2'])
      assert.equal(
        (await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet, { nonce }), bearer(keys.shared))).status,
        200,
      )
    // 2 spent over HTTP: this request (3) pays for its first call, then 4 and 5, then two over.
    const batch = await rawMcp(
      gateway.baseUrl,
      Array.from({ length: 5 }, (_, i) =>
        toolCall(i, 'validate_intent', { intent: demoIntent(devnet, { nonce: String(30 + i) }), chainId: '31337' }),
      ),
      bearer(keys.shared),
    )
    assert.equal(batch.status, 200, batch.text)
    const statuses = results([batch]).map((r) => r.structuredContent.httpStatus)
    assert.deepEqual(statuses.sort(), [200, 200, 200, 429, 429])
    const http = await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet, { nonce: '40' }), {
      ...bearer(keys.shared),
      'x-chain-id': '31337',
    })
    assert.equal(http.status, 429)
    assertCommonHeaders(http, { status: '0xF6' })

    // The tool's refusal is the route's own: body, code and headers, Retry-After included.
    const refused = results([batch]).find((r) => r.structuredContent.httpStatus === 429)
    const { detail: toolDetail, ...toolBody } = refused.structuredContent.body
    const { detail: httpDetail, ...httpBody } = http.body
    assert.deepEqual(toolBody, httpBody)
    assert.match(toolDetail, /^at most 5 requests per 60 s per client; retry after \d+ s$/)
    assert.match(httpDetail, /^at most 5 requests per 60 s per client; retry after \d+ s$/)
    const { 'retry-after': toolRetry, ...toolHeaders } = refused.structuredContent.headers
    const httpHeaders = Object.fromEntries(Object.keys(toolHeaders).map((name) => [name, http.headers.get(name)]))
    assert.deepEqual(toolHeaders, httpHeaders)
    assert.ok(Math.abs(Number(toolRetry) - Number(http.headers.get('retry-after'))) <= 1)
    assert.equal(refused.structuredContent.erc1066Status, '0xF6')
    assert.equal(refused.isError, true)

    // Another key, and a client without one (its address), have budgets of their own.
    const other = await rawMcp(
      gateway.baseUrl,
      toolCall(1, 'validate_intent', { intent: demoIntent(devnet, { nonce: '41' }) }),
      bearer(keys.other),
    )
    assert.equal(other.body.result.structuredContent.httpStatus, 200, other.text)
    assert.equal(
      (await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet, { nonce: '42' }), bearer(keys.other)))
        .status,
      200,
    )
    const keyless = await rawMcp(gateway.baseUrl, [
      toolCall(1, 'validate_intent', { intent: demoIntent(devnet, { nonce: '43' }) }),
      toolCall(2, 'explain_status', { code: '0x01' }),
    ])
    assert.deepEqual(
      keyless.body.map((m: any) => m.result.structuredContent.httpStatus),
      [200, 200],
    )
  })

  it('counts every tools/call, whatever the tool: explain_status and list_chains too, and a refused call', async () => {
    const key = 'mcp-limits-every-tool-key-0000000006'
    const counted = await startTestGateway({
      chains: [devnet.chain],
      auth: { keyHashes: [hashApiKey(key)], requireForValidate: false },
      rateLimit: { max: 3, windowMs: 60_000 },
    })
    try {
      const batch = await rawMcp(
        counted.baseUrl,
        [
          toolCall(1, 'explain_status', { code: '0x01' }),
          toolCall(2, 'list_chains', {}),
          toolCall(3, 'get_intent', { intentHash: 'bad' }),
          toolCall(4, 'explain_status', { code: '0x10' }),
        ],
        bearer(key),
      )
      assert.deepEqual(
        batch.body.map((m: any) => m.result.isError ?? false),
        [false, false, true, true],
      )
      assert.equal(batch.body[2].result.structuredContent.httpStatus, 400)
      assert.equal(JSON.parse(batch.body[3].result.content[0].text).httpStatus, 429)
      // tools/list and initialize cost the /mcp request, no more.
      assert.equal((await rawMcp(counted.baseUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 200)
    } finally {
      await counted.close()
    }
  })
})

describe('MCP tool calls and the rate limit in Redis, shared by two instances', () => {
  // Keys of this run only, under a prefix of their own; only those are deleted.
  const prefix = `test:mcp-limits:${randomBytes(6).toString('hex')}:`
  let devnet: Devnet
  let gateways: TestGateway[] = []

  before(async () => {
    devnet = await startDevnet()
    const storage = (instanceId: string) => ({
      redisUrl: `${redisUrl}?keyPrefix=${encodeURIComponent(prefix)}`,
      instanceId,
    })
    gateways = await Promise.all(
      ['mcp-a', 'mcp-b'].map((id) =>
        startTestGateway({ chains: [devnet.chain], rateLimit: { max, windowMs: 60_000 }, storage: storage(id) }),
      ),
    )
  })
  after(async () => {
    await Promise.all(gateways.map((g) => g.close()))
    await devnet?.stop()
    const redis = new Redis(redisUrl)
    try {
      const created = await redis.keys(`${prefix}*`)
      if (created.length > 0) await redis.del(...created)
    } finally {
      await redis.quit()
    }
  })

  it('counts the tool calls of one client on either instance in one budget', async () => {
    assert.equal((await request(gateways[0]!.baseUrl, '/health')).body.instance.rateLimits, 'redis')
    const first = await rawMcp(
      gateways[0]!.baseUrl,
      Array.from({ length: 4 }, (_, i) =>
        toolCall(i, 'validate_intent', { intent: demoIntent(devnet, { nonce: String(i) }) }),
      ),
    )
    assert.deepEqual(
      results([first]).map((r) => r.structuredContent.httpStatus),
      [200, 200, 200, 200],
    )
    // 4 spent on the first instance: on the second, the request (5) pays for one call, two are over.
    const second = await rawMcp(
      gateways[1]!.baseUrl,
      Array.from({ length: 3 }, (_, i) =>
        toolCall(i, 'validate_intent', { intent: demoIntent(devnet, { nonce: String(10 + i) }) }),
      ),
    )
    assert.deepEqual(
      results([second])
        .map((r) => r.structuredContent.httpStatus)
        .sort(),
      [200, 429, 429],
    )
    assert.equal((await rawMcp(gateways[0]!.baseUrl, toolCall(1, 'explain_status', { code: '0x01' }))).status, 429)

    // The counts are under this run's prefix, nowhere else.
    const redis = new Redis(redisUrl)
    try {
      const counted = await redis.keys(`${prefix}*`)
      assert.equal(counted.length, 1, counted.join(', '))
      assert.match(counted[0]!, /^test:mcp-limits:[0-9a-f]{12}:intent-gateway:rate-limit:ip:/)
      assert.equal(Number(await redis.get(counted[0]!)), max + 3)
    } finally {
      await redis.quit()
    }
  })

  it('skips the count of tool calls, as of requests, while Redis is unreachable (fails open, as HTTP does)', async () => {
    const unreachable = await startTestGateway({
      chains: [devnet.chain],
      rateLimit: { max: 1, windowMs: 60_000 },
      storage: { redisUrl: 'redis://127.0.0.1:9', instanceId: 'mcp-no-redis' },
    })
    try {
      const batch = await rawMcp(
        unreachable.baseUrl,
        Array.from({ length: 3 }, (_, i) =>
          toolCall(i, 'validate_intent', { intent: demoIntent(devnet, { nonce: String(50 + i) }) }),
        ),
      )
      assert.equal(batch.status, 200, batch.text)
      assert.deepEqual(
        results([batch]).map((r) => r.structuredContent.httpStatus),
        [200, 200, 200],
      )
    } finally {
      await unreachable.close()
    }
  })
})

describe('MCP arguments nested thousands deep', () => {
  let devnet: Devnet
  let gateway: TestGateway
  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({ chains: [devnet.chain] })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  // Written as text: JSON.stringify itself overflows the stack on a value this deep.
  const deep = `${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}`
  const deepArray = '['.repeat(6000) + ']'.repeat(6000)

  it('answers invalid params (-32602) naming the argument, for an argument, _meta and x402/payment 6,000 deep', async () => {
    const intent = JSON.stringify(demoIntent(devnet))
    const cases = [
      [
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"validate_intent","arguments":{"intent":${deep}}}}`,
        'intent',
      ],
      [
        `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_intent","arguments":{"intent":${intent},"chainId":${deepArray}}}}`,
        'chainId',
      ],
      [
        `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_intent","arguments":{"intent":${intent}},"_meta":{"x402/payment":${deep}}}}`,
        '_meta.x402/payment',
      ],
      [
        `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"explain_status","arguments":{"code":"0x01"},"_meta":{"progressToken":1,"trace":${deep}}}}`,
        '_meta.trace',
      ],
    ] as const
    for (const [body, field] of cases) {
      const res = await rawMcp(gateway.baseUrl, body)
      assert.equal(res.status, 200, res.text)
      assertCommonHeaders(res, { status: '0x01' })
      assert.equal(res.body.error.code, -32602, res.text)
      // The v2 SDK sends a ProtocolError's message as it is (v1 prefixed "MCP error -32602: ").
      assert.equal(res.body.error.message, `${field} is nested more than 32 levels deep`)
      assert.deepEqual(res.body.error.data, { errors: [{ field, message: 'is nested more than 32 levels deep' }] })
    }
    // In a batch, the deep call alone is refused.
    const batch = await rawMcp(
      gateway.baseUrl,
      `[${cases[0][0]},{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"explain_status","arguments":{"code":"0x10"}}}]`,
    )
    assert.equal(batch.body[0].error.code, -32602)
    assert.equal(batch.body[1].result.structuredContent.statusName, 'DISALLOWED')
    // Nested as deep as an intent ever is: the route answers it as over HTTP.
    const shallow = await rawMcp(
      gateway.baseUrl,
      toolCall(6, 'validate_intent', { intent: { ...demoIntent(devnet), accounts: [{ pubkey: [[[['x']]]] }] } }),
    )
    assert.equal(shallow.body.result.structuredContent.httpStatus, 400)
  })
})
