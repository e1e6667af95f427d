// X-Request-Id (docs/api-contract.md §15): a caller's acceptable id is answered back and logged; an
// unacceptable one is replaced, never echoed; every answer carries one, the framework's own
// errors (404, 405, 413, 415, the parser's 400, unreadable paths, unparsable HTTP) included.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { rawRequest } from '../support/rawRequest.ts'
import {
  demoIntent,
  type HttpResult,
  post,
  request,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('request ids', () => {
  let world: World
  let gateway: TestGateway

  before(async () => {
    world = await startWorld()
    gateway = await startTestGateway({ chains: [world.devnet.chain], bodyLimit: 2048 })
  })
  after(async () => {
    await gateway?.close()
    await world?.stop()
  })

  /** The lines the gateway logged with this reqId. */
  const linesWith = (id: string) =>
    gateway.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reqId === id)

  /** A request written byte for byte: what fetch refuses to send. */
  const raw = (head: string) => rawRequest(gateway.baseUrl, head)

  it('answers and logs an acceptable id the caller sent', async () => {
    const id = 'agent-7/run:42~retry#1'
    const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), { 'x-request-id': id })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.headers.get('x-request-id'), id)
    const lines = linesWith(id)
    assert.ok(
      lines.some((l) => l.msg === 'request' && l.statusCode === 200),
      JSON.stringify(lines),
    )

    // 128 visible characters is the longest taken.
    const longest = '~'.repeat(128)
    assert.equal(
      (await request(gateway.baseUrl, '/health', { headers: { 'x-request-id': longest } })).headers.get('x-request-id'),
      longest,
    )
  })

  it('makes a fresh id for each request that sends none', async () => {
    const first = await request(gateway.baseUrl, '/health')
    const second = await request(gateway.baseUrl, '/health')
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')]
    for (const id of ids) assert.match(id ?? '', uuid)
    assert.notEqual(ids[0], ids[1])
    assert.ok(
      linesWith(ids[0]!).some((l) => l.msg === 'request'),
      'the made id is logged too',
    )
  })

  it('replaces an unacceptable id instead of echoing it', async () => {
    const refused = ['x'.repeat(129), 'has space', 'tab\there', 'caf\u00e9', '', 'a,b, c']
    for (const id of refused) {
      const res = await request(gateway.baseUrl, '/health', { headers: { 'x-request-id': id } })
      const answered = res.headers.get('x-request-id') ?? ''
      assert.match(answered, uuid, `${JSON.stringify(id)} answered ${JSON.stringify(answered)}`)
      assert.equal(linesWith(id).length, 0, `${JSON.stringify(id)} was logged as a request id`)
    }
    // Bytes fetch will not send: DEL (Node's parser refuses the request itself), and a header
    // given twice (which Node joins with ", ").
    const del = await raw('GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\x7fb\r\nConnection: close\r\n\r\n')
    assert.equal(del.status, 400)
    assert.match(del.headers.get('x-request-id') ?? '', uuid)
    const twice = await raw(
      'GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: one\r\nX-Request-Id: two\r\nConnection: close\r\n\r\n',
    )
    assert.equal(twice.status, 200)
    assert.match(twice.headers.get('x-request-id') ?? '', uuid)
  })

  it("carries the id on the framework's own errors", async () => {
    const cases: Array<[string, number, () => Promise<HttpResult>]> = [
      ['404', 404, () => request(gateway.baseUrl, '/no-such-route', { headers: { 'x-request-id': 'r-404' } })],
      ['405', 405, () => request(gateway.baseUrl, '/intents/execute', { headers: { 'x-request-id': 'r-405' } })],
      [
        '413',
        413,
        () =>
          post(gateway.baseUrl, '/intents/validate', { data: `0x${'00'.repeat(4096)}` }, { 'x-request-id': 'r-413' }),
      ],
      [
        '415',
        415,
        () =>
          request(gateway.baseUrl, '/intents/validate', {
            method: 'POST',
            headers: { 'content-type': 'text/plain', 'x-request-id': 'r-415' },
            body: 'hello',
          }),
      ],
      ['400', 400, () => post(gateway.baseUrl, '/intents/validate', '{"sender":', { 'x-request-id': 'r-400' })],
      ['bad-url', 400, () => request(gateway.baseUrl, '/chains/%zz', { headers: { 'x-request-id': 'r-bad-url' } })],
      [
        '414',
        414,
        () => request(gateway.baseUrl, `/chains/${'1'.repeat(120)}`, { headers: { 'x-request-id': 'r-414' } }),
      ],
    ]
    for (const [name, httpStatus, send] of cases) {
      const res = await send()
      assert.equal(res.status, httpStatus, `${name}: ${res.text}`)
      assert.equal(res.headers.get('x-request-id'), `r-${name}`, name)
      assert.ok(linesWith(`r-${name}`).length > 0, `${name} is logged with its id`)
    }
  })

  it('gives an id to an answer written before any request was parsed', async () => {
    const res = await raw('GARBAGE\r\n\r\n')
    assert.equal(res.status, 400)
    assert.match(res.headers.get('x-request-id') ?? '', uuid)
  })

  it('lets browser clients on an allowed origin read it (CORS)', async () => {
    const cors = await startTestGateway({ chains: [world.devnet.chain], corsOrigins: ['https://agent.example'] })
    try {
      const res = await request(cors.baseUrl, '/health', {
        headers: { origin: 'https://agent.example', 'x-request-id': 'from-a-browser' },
      })
      assert.equal(res.headers.get('x-request-id'), 'from-a-browser')
      assert.ok(
        res.headers
          .get('access-control-expose-headers')
          ?.split(',')
          .map((h) => h.trim())
          .includes('x-request-id'),
        res.headers.get('access-control-expose-headers') ?? '',
      )
      const preflight = await request(cors.baseUrl, '/intents/validate', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://agent.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-request-id',
        },
      })
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /x-request-id/)
    } finally {
      await cors.close()
    }
  })

  it('declares the header on every answer in the OpenAPI document', async () => {
    const doc = (await request(gateway.baseUrl, '/openapi.json')).body
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
          assert.ok(
            response.headers?.['X-Request-Id'],
            `${method.toUpperCase()} ${path} ${status} declares X-Request-Id`,
          )
        }
      }
    }
  })
})
