// GET /metrics against a real gateway on anvil: after real traffic, the counters moved by exactly
// what was sent, with bounded labels; RPC timings and failures at the chain layer; the token.
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { Registry } from 'prom-client'
import { toFunctionSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { AppParts } from '../../src/app.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { createSuiAdapter } from '../../src/chains/sui/createSuiAdapter.ts'
import { createMetricsServer } from '../../src/http/createMetricsServer.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { createMetrics } from '../../src/metrics/createMetrics.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { find, parseMetrics, type Sample, valueOf } from '../support/parseMetrics.ts'
import { quietLogger } from '../support/solanaGateway.ts'
import { suiRelayer } from '../support/suiGateway.ts'
import { startSuiStandIn } from '../support/suiStandIn.ts'
import { testApp } from '../support/testApp.ts'
import { type ConfigOverrides, testConfig } from '../support/testConfig.ts'
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

const chain = 'eip155:31337'

/** One POST, never repeated: its HTTP status. */
function postOnce(url: string, body: unknown, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode!))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}
const relayer = privateKeyToAccount(devnetAccounts.relayer).address

describe('GET /metrics', () => {
  let world: World
  let guarded: TestGateway
  let guardedOpen = true
  const closeGuarded = async () => {
    if (guardedOpen) await guarded.close()
    guardedOpen = false
  }
  const token = 'metrics-token-0123456789'
  const scrape = async (baseUrl = world.gateway.baseUrl): Promise<Sample[]> => {
    const res = await request(baseUrl, '/metrics')
    assert.equal(res.status, 200, res.text.slice(0, 300))
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
    return parseMetrics(res.text)
  }
  const ours = (samples: Sample[]) => samples.filter((s) => s.name.startsWith('intent_gateway_'))

  before(async () => {
    world = await startWorld()
    guarded = await startTestGateway({
      chains: [world.devnet.chain],
      metricsToken: token,
      rateLimit: { max: 1, windowMs: 60_000 },
    })
  })
  after(async () => {
    if (guarded) await closeGuarded()
    await world?.stop()
  })

  it('counts requests by route, method, HTTP status and ERC-1066 code, executions by outcome, and times eth_call', async () => {
    const h = { 'x-chain-id': '31337' }
    const ok = await post(world.gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), h)
    assert.equal(ok.status, 200)
    const disallowed = await post(
      world.gateway.baseUrl,
      '/intents/validate',
      demoIntent(world.devnet, { data: toFunctionSelector('fail(string)') }),
      h,
    )
    assert.equal(disallowed.status, 403)
    // Through node:http: fetch (undici) sends a request again on its own when answered 421.
    const misdirected = await postOnce(
      `${world.gateway.baseUrl}/intents/validate`,
      demoIntent(world.devnet, { policyId: world.devnet.demo.policies.mainnetOnly }),
      h,
    )
    assert.equal(misdirected, 421)
    const bad = await post(world.gateway.baseUrl, '/intents/validate', { sender: 'nobody' }, h)
    assert.equal(bad.status, 400)
    const executed = await post(world.gateway.baseUrl, '/intents/execute', await signedIntent(world.devnet), h)
    assert.equal(executed.status, 200, executed.text)
    assert.equal(executed.body.state, 'mined')
    const refused = await post(
      world.gateway.baseUrl,
      '/intents/execute',
      await signedIntent(world.devnet, { nonce: '1', data: toFunctionSelector('fail(string)') }),
      h,
    )
    assert.equal(refused.status, 403)

    const samples = await scrape()
    // Exactly these series, each with exactly these labels and counts: the scrape itself is
    // recorded once its response is sent, so it is not in its own answer.
    assert.deepEqual(
      samples
        .filter((s) => s.name === 'intent_gateway_http_requests_total')
        .map((s) => [s.labels, s.value])
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      [
        [
          {
            route: '/intents/execute',
            method: 'POST',
            http_status: '200',
            erc1066: executed.headers.get('x-erc1066-status'),
          },
          1,
        ],
        [{ route: '/intents/execute', method: 'POST', http_status: '403', erc1066: '0x10' }, 1],
        [{ route: '/intents/validate', method: 'POST', http_status: '200', erc1066: '0x01' }, 1],
        [{ route: '/intents/validate', method: 'POST', http_status: '400', erc1066: '0xA0' }, 1],
        [{ route: '/intents/validate', method: 'POST', http_status: '403', erc1066: '0x10' }, 1],
        [{ route: '/intents/validate', method: 'POST', http_status: '421', erc1066: '0xA2' }, 1],
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    )
    assert.equal(executed.headers.get('x-erc1066-status'), '0x11')
    assert.equal(
      valueOf(samples, 'intent_gateway_http_request_duration_seconds_count', {
        route: '/intents/validate',
        method: 'POST',
        http_status: '421',
        erc1066: '0xA2',
      }),
      1,
    )

    assert.deepEqual(
      samples.filter((s) => s.name === 'intent_gateway_executions_total').map((s) => [s.labels, s.value]),
      [
        [{ chain, outcome: 'mined' }, 1],
        [{ chain, outcome: 'refused' }, 1],
      ],
    )
    // The validates read the validator with eth_call, and so does the refused execute once its
    // simulation fails; the executed one is simulated (eth_simulateV1) with no separate read.
    const calls = valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_count', { chain, method: 'eth_call' })
    assert.ok(calls !== undefined && calls >= 3, `eth_call samples: ${calls}`)
    assert.ok(
      valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_count', { chain, method: 'eth_simulateV1' })! >= 1,
    )
    // Its call was asked of the simulation; nothing of the gateway's was unmined then to replay.
    assert.ok(valueOf(samples, 'intent_gateway_simulated_calls_total', { chain, kind: 'asked' })! >= 1)
    assert.equal(valueOf(samples, 'intent_gateway_simulated_calls_total', { chain, kind: 'replayed' }), undefined)
    assert.equal(
      valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_bucket', { chain, method: 'eth_call', le: '+Inf' }),
      calls,
    )
    assert.ok(valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_sum', { chain, method: 'eth_call' })! > 0)
    assert.ok(
      valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_count', {
        chain,
        method: 'eth_sendRawTransaction',
      })! >= 1,
    )
    // The node answered every call.
    assert.deepEqual(
      samples.filter((s) => s.name === 'intent_gateway_chain_rpc_failures_total'),
      [],
    )

    assert.equal(valueOf(samples, 'intent_gateway_journal_unsettled'), 0)
    // One execution was sent and reached its receipt (the refused one sent nothing); the one endpoint answered.
    assert.equal(valueOf(samples, 'intent_gateway_execution_receipt_seconds_count', { chain }), 1)
    assert.ok(valueOf(samples, 'intent_gateway_execution_receipt_seconds_sum', { chain })! > 0)
    assert.equal(valueOf(samples, 'intent_gateway_chain_endpoint_up', { chain, endpoint: '0' }), 1)
    const balance = await world.clients.publicClient.getBalance({ address: relayer })
    assert.equal(valueOf(samples, 'intent_gateway_relayer_balance', { chain }), Number(balance))

    // No label value anywhere is an address, a hash or an id.
    const secrets = [
      relayer,
      world.devnet.demo.sender,
      world.devnet.contracts.executor,
      ok.headers.get('x-intent-hash')!,
      executed.body.transactionHash,
    ].map((v) => v.toLowerCase())
    for (const s of ours(samples)) {
      for (const [key, value] of Object.entries(s.labels)) {
        assert.doesNotMatch(value, /0x[0-9a-fA-F]{6,}/, `${s.name} ${key}=${value}`)
        assert.ok(!secrets.some((x) => value.toLowerCase().includes(x)), `${s.name} ${key}=${value}`)
      }
    }
  })

  it('serves /metrics with the common headers, and counts a scrape under its own route', async () => {
    const res = await request(world.gateway.baseUrl, '/metrics')
    assert.equal(res.status, 200)
    assertCommonHeaders(res, { status: '0x01' })
    const samples = await scrape()
    assert.ok(
      valueOf(samples, 'intent_gateway_http_requests_total', {
        route: '/metrics',
        method: 'GET',
        http_status: '200',
        erc1066: '0x01',
      })! >= 1,
    )
  })

  it('keeps the route label bounded: 50 different unknown URLs are one unmatched series', async () => {
    const before = ours(await scrape()).filter((s) => s.name === 'intent_gateway_http_requests_total').length
    for (let i = 0; i < 50; i++) {
      const res = await request(world.gateway.baseUrl, `/nowhere-${i}/${crypto.randomUUID()}?x=${i}`)
      assert.equal(res.status, 404)
    }
    const samples = await scrape()
    const series = samples.filter((s) => s.name === 'intent_gateway_http_requests_total')
    assert.deepEqual(
      find(samples, 'intent_gateway_http_requests_total', {
        route: 'unmatched',
        method: 'GET',
        http_status: '404',
        erc1066: '0xA1',
      }).map((s) => s.value),
      [50],
    )
    // The one new series, plus the previous scrape's /metrics series at most.
    assert.ok(series.length <= before + 2, `${before} series before, ${series.length} after`)
    for (const s of ours(samples)) for (const value of Object.values(s.labels)) assert.doesNotMatch(value, /nowhere/)
  })

  it('requires the bearer token when METRICS_TOKEN is set, and is never rate-limited', async () => {
    const none = await request(guarded.baseUrl, '/metrics')
    assert.equal(none.status, 401)
    assertCommonHeaders(none, { status: '0xE4' })
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="intent-gateway-metrics"')
    assert.doesNotMatch(none.text, /intent_gateway_/)
    const wrong = await request(guarded.baseUrl, '/metrics', { headers: { authorization: `Bearer ${token}x` } })
    assert.equal(wrong.status, 401)
    assert.match(wrong.headers.get('www-authenticate') ?? '', /invalid_token/)
    const basic = await request(guarded.baseUrl, '/metrics', { headers: { authorization: `Basic ${token}` } })
    assert.equal(basic.status, 401)
    // The rate limit here is 1 per minute on /intents/*: scrapes are not counted against it.
    for (let i = 0; i < 3; i++) {
      const res = await request(guarded.baseUrl, '/metrics', { headers: { authorization: `Bearer ${token}` } })
      assert.equal(res.status, 200)
      assert.match(res.text, /# TYPE intent_gateway_http_requests_total counter/)
      assert.equal(
        valueOf(parseMetrics(res.text), 'intent_gateway_http_requests_total', {
          route: '/metrics',
          method: 'GET',
          http_status: '401',
          erc1066: '0xE4',
        }),
        3,
      )
    }
    const fresh = demoIntent(world.devnet, { nonce: '7' })
    assert.equal((await post(guarded.baseUrl, '/intents/validate', fresh, { 'x-chain-id': '31337' })).status, 200)
    assert.equal(
      (await post(guarded.baseUrl, '/intents/validate', fresh, { 'x-chain-id': '31337' })).status,
      429,
      'the rate limit is on',
    )
  })

  // Last: it stops the node.
  it('counts RPC failures by chain, method and kind when the node is stopped', async () => {
    await closeGuarded()
    const failures = (samples: Sample[]) =>
      valueOf(samples, 'intent_gateway_chain_rpc_failures_total', { chain, method: 'eth_call', kind: 'unreachable' }) ??
      0
    const before = failures(await scrape())
    await world.devnet.stop()
    for (let i = 0; i < 2; i++) {
      const res = await post(world.gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), {
        'x-chain-id': '31337',
      })
      assert.equal(res.status, 503)
    }
    const samples = await scrape()
    assert.equal(failures(samples), before + 2)
    assert.equal(
      valueOf(samples, 'intent_gateway_chain_endpoint_up', { chain, endpoint: '0' }),
      0,
      'the stopped node is down',
    )
    assert.equal(
      valueOf(samples, 'intent_gateway_http_requests_total', {
        route: '/intents/validate',
        method: 'POST',
        http_status: '503',
        erc1066: '0xF4',
      }),
      2,
    )
  })
})

describe('RPC metrics of the Sui adapter', () => {
  it('times its SDK calls by name and counts a deadline missed as a timeout', async () => {
    const standIn = await startSuiStandIn({ relayer: suiRelayer.toSuiAddress() })
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    const adapter = createSuiAdapter({
      chain: { chainId: 'sui:localnet', rpcUrl: standIn.url, packageId: standIn.packageId, hubId: standIn.hubId },
      relayerSecretKey: suiRelayer.getSecretKey(),
      // Long enough for the first, healthy call on a loaded machine (CI run 143 missed 300 ms); the hang misses any.
      rpcTimeoutMs: 1500,
      logger: quietLogger,
      rpcRecorder: metrics.rpc,
    })
    try {
      assert.equal((await adapter.getHealth()).reachable, true)
      standIn.faults.set('*', { kind: 'hang' })
      assert.equal((await adapter.getHealth()).reachable, false)
      const samples = parseMetrics(await metrics.registry.metrics())
      assert.equal(
        valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_count', {
          chain: 'sui:localnet',
          method: 'getServiceInfo',
        }),
        2,
      )
      assert.deepEqual(
        samples.filter((s) => s.name === 'intent_gateway_chain_rpc_failures_total').map((s) => [s.labels, s.value]),
        [[{ chain: 'sui:localnet', method: 'getServiceInfo', kind: 'timeout' }, 1]],
      )
    } finally {
      standIn.faults.clear()
      await adapter.close()
      await standIn.close()
    }
  })
})

describe('metrics off, or on a port of their own', () => {
  const registry = createChainRegistry({ adapters: [], defaultChainId: undefined })
  const build = (overrides: ConfigOverrides, parts: Partial<AppParts> = {}) =>
    testApp(
      { server: { bodyLimit: 1024 }, execution: { receiptTimeoutMs: 1000 }, ...overrides },
      { registry, ...parts },
    )

  it('without metrics (METRICS_ENABLED=false), GET /metrics is 404 like any unknown route', async () => {
    const app = build({})
    try {
      const res = await app.inject({ method: 'GET', url: '/metrics' })
      assert.equal(res.statusCode, 404)
      assert.equal(res.headers['x-erc1066-status'], '0xA1')
      assert.equal(res.json().title, 'No such route')
    } finally {
      await app.close()
    }
  })

  it('with METRICS_PORT, the API records but does not serve /metrics; the metrics server serves only /metrics, with its token', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    const app = build({ interfaces: { metrics: { ...testConfig({}).interfaces.metrics, port: 9464 } } }, { metrics })
    const token = 'metrics-port-token-0123456789'
    const server = createMetricsServer({ metrics, token, registry, logger: quietLogger })
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
      assert.equal((await app.inject({ method: 'GET', url: '/status-codes' })).statusCode, 200)
      const base = await server.listen({ host: '127.0.0.1', port: 0 })

      const none = await request(base, '/metrics')
      assert.equal(none.status, 401)
      assert.equal(none.headers.get('x-erc1066-status'), '0xE4')
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="intent-gateway-metrics"')
      assert.doesNotMatch(none.text, /intent_gateway_/)

      const res = await request(base, '/metrics', { headers: { authorization: `Bearer ${token}` } })
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
      assert.equal(res.headers.get('x-erc1066-status'), '0x01')
      const samples = parseMetrics(res.text)
      // The API's traffic, including its 404 for /metrics, scraped from the other port.
      assert.equal(
        valueOf(samples, 'intent_gateway_http_requests_total', {
          route: '/status-codes',
          method: 'GET',
          http_status: '200',
          erc1066: '0x01',
        }),
        1,
      )
      assert.equal(
        valueOf(samples, 'intent_gateway_http_requests_total', {
          route: 'unmatched',
          method: 'GET',
          http_status: '404',
          erc1066: '0xA1',
        }),
        1,
      )

      const elsewhere = await request(base, '/intents/validate', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      })
      assert.equal(elsewhere.status, 404)
      assert.equal(elsewhere.body.title, 'No such route')
      const post = await request(base, '/metrics', { method: 'POST', headers: { authorization: `Bearer ${token}` } })
      assert.equal(post.status, 405)
      assert.equal(post.headers.get('allow'), 'GET, HEAD')
    } finally {
      await server.close()
      await app.close()
    }
  })

  it('without a token, the metrics server answers any scraper', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    const server = createMetricsServer({ metrics, registry, logger: quietLogger })
    try {
      const base = await server.listen({ host: '127.0.0.1', port: 0 })
      const res = await request(base, '/metrics')
      assert.equal(res.status, 200)
      assert.match(res.text, /# TYPE intent_gateway_chain_endpoint_up gauge/)
    } finally {
      await server.close()
    }
  })
})
