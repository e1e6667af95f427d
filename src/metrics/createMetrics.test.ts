import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { register as globalRegistry, Registry } from 'prom-client'
import { find, parseMetrics, valueOf } from '../../test/support/parseMetrics.ts'
import { createMetrics } from './createMetrics.ts'

const scrape = async (registry: Registry) => parseMetrics(await registry.metrics())

describe('createMetrics', () => {
  it('records requests with bounded labels: the route pattern or unmatched, known methods, the code as the header writes it', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    metrics.recordRequest({
      route: '/intents/validate',
      method: 'POST',
      httpStatus: 200,
      erc1066: '0x01',
      seconds: 0.02,
    })
    metrics.recordRequest({
      route: '/intents/validate',
      method: 'POST',
      httpStatus: 200,
      erc1066: '0x01',
      seconds: 0.03,
    })
    metrics.recordRequest({
      route: '/intents/validate',
      method: 'POST',
      httpStatus: 421,
      erc1066: '0xa2',
      seconds: 0.01,
    })
    metrics.recordRequest({ route: undefined, method: 'PROPFIND', httpStatus: 404, erc1066: undefined, seconds: 0.001 })
    metrics.recordRequest({ route: undefined, method: 'GET', httpStatus: 404, erc1066: '0x1234', seconds: 0.001 })
    const samples = await scrape(metrics.registry)
    assert.deepEqual(
      samples.filter((s) => s.name === 'intent_gateway_http_requests_total').map((s) => [s.labels, s.value]),
      [
        [{ route: '/intents/validate', method: 'POST', http_status: '200', erc1066: '0x01' }, 2],
        [{ route: '/intents/validate', method: 'POST', http_status: '421', erc1066: '0xA2' }, 1],
        [{ route: 'unmatched', method: 'other', http_status: '404', erc1066: 'none' }, 1],
        [{ route: 'unmatched', method: 'GET', http_status: '404', erc1066: 'none' }, 1],
      ],
    )
    const labels = { route: '/intents/validate', method: 'POST', http_status: '200', erc1066: '0x01' }
    assert.equal(valueOf(samples, 'intent_gateway_http_request_duration_seconds_count', labels), 2)
    assert.ok(Math.abs(valueOf(samples, 'intent_gateway_http_request_duration_seconds_sum', labels)! - 0.05) < 1e-9)
    assert.equal(valueOf(samples, 'intent_gateway_http_request_duration_seconds_bucket', { ...labels, le: '0.025' }), 1)
    assert.equal(valueOf(samples, 'intent_gateway_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }), 2)
  })

  it('records RPC calls by chain and a method from a fixed set, and failures by kind', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    metrics.rpc.observeRpc({ chain: 'eip155:1', method: 'eth_call', seconds: 0.004 })
    metrics.rpc.observeRpc({ chain: 'eip155:1', method: 'eth_call', seconds: 2, failure: 'timeout' })
    metrics.rpc.observeRpc({ chain: 'eip155:1', method: 'debug_whatever_0xabc', seconds: 0.1, failure: 'node_error' })
    const samples = await scrape(metrics.registry)
    assert.equal(
      valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_count', { chain: 'eip155:1', method: 'eth_call' }),
      2,
    )
    assert.equal(
      valueOf(samples, 'intent_gateway_chain_rpc_duration_seconds_count', { chain: 'eip155:1', method: 'other' }),
      1,
    )
    assert.deepEqual(
      samples.filter((s) => s.name === 'intent_gateway_chain_rpc_failures_total').map((s) => [s.labels, s.value]),
      [
        [{ chain: 'eip155:1', method: 'eth_call', kind: 'timeout' }, 1],
        [{ chain: 'eip155:1', method: 'other', kind: 'node_error' }, 1],
      ],
    )
  })

  it('counts executions and payments by outcome (an unknown payment outcome as refused), and keeps off the global registry', async () => {
    const registry = new Registry()
    const metrics = createMetrics({ registry })
    metrics.recordExecution({ chain: 'eip155:1', outcome: 'mined' })
    metrics.recordExecution({ chain: 'eip155:1', outcome: 'mined' })
    metrics.recordExecution({ chain: 'eip155:1', outcome: 'refused' })
    metrics.recordPayment({ chain: 'eip155:1', outcome: 'settled' })
    metrics.recordPayment({ chain: 'eip155:1', outcome: 'bogus' as never })
    const text = await registry.metrics()
    const samples = parseMetrics(text)
    assert.equal(valueOf(samples, 'intent_gateway_executions_total', { chain: 'eip155:1', outcome: 'mined' }), 2)
    assert.equal(valueOf(samples, 'intent_gateway_executions_total', { chain: 'eip155:1', outcome: 'refused' }), 1)
    assert.match(text, /# TYPE intent_gateway_payments_total counter/)
    assert.equal(valueOf(samples, 'intent_gateway_payments_total', { chain: 'eip155:1', outcome: 'settled' }), 1)
    assert.equal(valueOf(samples, 'intent_gateway_payments_total', { chain: 'eip155:1', outcome: 'refused' }), 1)
    assert.ok(
      samples.some((s) => s.name === 'process_cpu_user_seconds_total'),
      'process default metrics',
    )
    assert.equal(registry.contentType, 'text/plain; version=0.0.4; charset=utf-8')
    assert.equal(await globalRegistry.getSingleMetric('intent_gateway_executions_total'), undefined)
  })

  it('reads the journal backlog on each scrape and the relayer balance at most once per cache period, keeping the last value when a read fails', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    const before = await scrape(metrics.registry)
    assert.equal(
      find(before, 'intent_gateway_relayer_balance', { chain: 'eip155:1' }).length,
      0,
      'no samples before sources are given',
    )
    let backlog = 3
    let reads = 0
    let fail = false
    let releaseRead: (() => void) | undefined
    let gate: Promise<void> | undefined
    metrics.observe({
      journalBacklog: async () => backlog,
      relayerBalances: [
        {
          chain: 'eip155:1',
          read: async () => {
            reads++
            await gate
            if (fail) throw new Error('node down')
            return 10n ** 18n + BigInt(reads)
          },
        },
      ],
      balanceCacheMs: 200,
    })
    let samples = await scrape(metrics.registry)
    assert.equal(valueOf(samples, 'intent_gateway_journal_unsettled'), 3)
    assert.equal(valueOf(samples, 'intent_gateway_relayer_balance', { chain: 'eip155:1' }), 1e18 + 1)
    backlog = 1
    samples = await scrape(metrics.registry)
    assert.equal(valueOf(samples, 'intent_gateway_journal_unsettled'), 1)
    assert.equal(valueOf(samples, 'intent_gateway_relayer_balance', { chain: 'eip155:1' }), 1e18 + 1)
    assert.equal(reads, 1, 'cached within the period')

    await new Promise((r) => setTimeout(r, 250))
    // Concurrent scrapes share one read.
    gate = new Promise((r) => (releaseRead = r))
    const scrapes = Promise.all([scrape(metrics.registry), scrape(metrics.registry), scrape(metrics.registry)])
    await new Promise((r) => setTimeout(r, 20))
    releaseRead!()
    for (const s of await scrapes)
      assert.equal(valueOf(s, 'intent_gateway_relayer_balance', { chain: 'eip155:1' }), 1e18 + 2)
    assert.equal(reads, 2)
    gate = undefined

    await new Promise((r) => setTimeout(r, 250))
    fail = true
    samples = await scrape(metrics.registry)
    assert.equal(reads, 3)
    assert.equal(
      valueOf(samples, 'intent_gateway_relayer_balance', { chain: 'eip155:1' }),
      1e18 + 2,
      'the last value stays',
    )
    fail = false
    samples = await scrape(metrics.registry)
    assert.equal(reads, 4, 'a failed read is retried at the next scrape')
    assert.equal(valueOf(samples, 'intent_gateway_relayer_balance', { chain: 'eip155:1' }), 1e18 + 4)
  })
})

describe('createMetrics: receipts and endpoint health', () => {
  it('times broadcast to receipt by chain', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    metrics.recordReceiptWait({ chain: 'eip155:1', seconds: 0.3 })
    metrics.recordReceiptWait({ chain: 'eip155:1', seconds: 12 })
    metrics.recordReceiptWait({ chain: 'eip155:1', seconds: Number.NaN })
    metrics.recordReceiptWait({ chain: 'eip155:1', seconds: -1 })
    const samples = await scrape(metrics.registry)
    assert.equal(valueOf(samples, 'intent_gateway_execution_receipt_seconds_count', { chain: 'eip155:1' }), 2)
    assert.ok(
      Math.abs(valueOf(samples, 'intent_gateway_execution_receipt_seconds_sum', { chain: 'eip155:1' })! - 12.3) < 1e-9,
    )
    assert.equal(
      valueOf(samples, 'intent_gateway_execution_receipt_seconds_bucket', { chain: 'eip155:1', le: '0.5' }),
      1,
    )
    assert.equal(
      valueOf(samples, 'intent_gateway_execution_receipt_seconds_bucket', { chain: 'eip155:1', le: '15' }),
      2,
    )
  })

  it("counts the simulations' calls by chain: asked, and the gateway's unmined transactions replayed", async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    metrics.rpc.observeSimulation({ chain: 'eip155:1', asked: 3, replayed: 0 })
    metrics.rpc.observeSimulation({ chain: 'eip155:1', asked: 1, replayed: 199 })
    metrics.rpc.observeSimulation({ chain: 'eip155:10', asked: 2, replayed: 5 })
    const samples = await scrape(metrics.registry)
    assert.deepEqual(
      samples.filter((s) => s.name === 'intent_gateway_simulated_calls_total').map((s) => [s.labels, s.value]),
      [
        [{ chain: 'eip155:1', kind: 'asked' }, 4],
        [{ chain: 'eip155:1', kind: 'replayed' }, 199],
        [{ chain: 'eip155:10', kind: 'asked' }, 2],
        [{ chain: 'eip155:10', kind: 'replayed' }, 5],
      ],
    )
  })

  it('counts the executions simulated again before their signature, by chain and outcome', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    metrics.rpc.observeResimulation({ chain: 'eip155:1', outcome: 'passed' })
    metrics.rpc.observeResimulation({ chain: 'eip155:1', outcome: 'passed' })
    metrics.rpc.observeResimulation({ chain: 'eip155:1', outcome: 'refused' })
    metrics.rpc.observeResimulation({ chain: 'eip155:10', outcome: 'overtaken' })
    metrics.rpc.observeResimulation({ chain: 'eip155:10', outcome: 'other' as never })
    const samples = await scrape(metrics.registry)
    assert.deepEqual(
      samples.filter((s) => s.name === 'intent_gateway_execution_resimulations_total').map((s) => [s.labels, s.value]),
      [
        [{ chain: 'eip155:1', outcome: 'passed' }, 2],
        [{ chain: 'eip155:1', outcome: 'refused' }, 1],
        [{ chain: 'eip155:10', outcome: 'overtaken' }, 1],
        [{ chain: 'eip155:10', outcome: 'refused' }, 1],
      ],
    )
  })

  it('keeps each endpoint up or down by chain and position, bounded, never a URL', async () => {
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    metrics.rpc.observeEndpoint({ chain: 'eip155:1', endpoint: 0, up: true })
    metrics.rpc.observeEndpoint({ chain: 'eip155:1', endpoint: 1, up: true })
    metrics.rpc.observeEndpoint({ chain: 'eip155:1', endpoint: 1, up: false })
    metrics.rpc.observeEndpoint({ chain: 'eip155:10', endpoint: 0, up: false })
    for (let i = 16; i < 40; i++) metrics.rpc.observeEndpoint({ chain: 'eip155:1', endpoint: i, up: true })
    metrics.rpc.observeEndpoint({ chain: 'eip155:1', endpoint: -1, up: true })
    const samples = await scrape(metrics.registry)
    assert.deepEqual(
      samples.filter((s) => s.name === 'intent_gateway_chain_endpoint_up').map((s) => [s.labels, s.value]),
      [
        [{ chain: 'eip155:1', endpoint: '0' }, 1],
        [{ chain: 'eip155:1', endpoint: '1' }, 0],
        [{ chain: 'eip155:10', endpoint: '0' }, 0],
        [{ chain: 'eip155:1', endpoint: 'other' }, 1],
      ],
    )
  })
})
