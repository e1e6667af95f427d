// OpenTelemetry through the whole gateway, against real anvil and the real contracts: one execute
// is a SERVER span (continuing the caller's traceparent) with the chain, route, ERC-1066 status,
// intent hash and HTTP status, and under it spans for the RPC calls, the journal writes (the
// signed transaction's among them) and, when paid, x402's verify and settle; the log lines of the
// request carry its trace id; nothing secret reaches a span; without tracing, nothing is traced.

import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { SpanKind } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { hashApiKey } from '../../src/crypto/hashApiKey.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { createTracing } from '../../src/tracing/createTracing.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { localKey } from '../support/relayerKeys.ts'
import { testConfig } from '../support/testConfig.ts'
import { demoIntent, post, signedIntent } from '../support/testGateway.ts'

const apiKey = 'operator-key-tracing-0123456789'
const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736'
const callerSpanId = '00f067aa0ba902b7'

describe('tracing (OpenTelemetry)', () => {
  let devnet: Devnet
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const tracing = createTracing({ tracerProvider: provider })
  const logs: string[] = []
  let traced: Gateway & { baseUrl: string }
  let untraced: Gateway & { baseUrl: string }

  const start = async (withTracing: boolean) => {
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void logs.push(line) },
      mixin: withTracing ? tracing.logFields : undefined,
    })
    const gateway = await createGateway({
      config: testConfig({
        chains: [devnet.chain],
        keys: { evm: [localKey(devnetAccounts.relayer, 'RELAYER_PRIVATE_KEY')] },
        auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
        payments: devnet.payments,
        execution: { receiptTimeoutMs: 10_000 },
        rpc: { timeoutMs: 2_000, pollMs: 20 },
      }),
      logger,
      tracing: withTracing ? tracing : undefined,
    })
    return { ...gateway, baseUrl: await gateway.app.listen({ host: '127.0.0.1', port: 0 }) }
  }

  before(async () => {
    // As startTracing does for the process: W3C trace context and AsyncLocalStorage, globally.
    provider.register()
    devnet = await startDevnet()
    traced = await start(true)
    untraced = await start(false)
  })
  after(async () => {
    await traced?.close()
    await untraced?.close()
    await devnet?.stop()
    await provider.shutdown()
  })
  beforeEach(() => exporter.reset())

  /** The spans of one trace, and each span's chain of ancestors within it. */
  const traceOf = (traceId: string) => {
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId)
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
    const ancestors = (s: ReadableSpan): ReadableSpan[] => {
      const parent = s.parentSpanContext && byId.get(s.parentSpanContext.spanId)
      return parent ? [parent, ...ancestors(parent)] : []
    }
    return { spans, ancestors }
  }
  /** Every attribute value of every span, as text: what must never hold a secret. */
  const allAttributeText = () =>
    JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events]))

  it("traces a signed execute: a SERVER span continuing the caller's traceparent, with RPC calls and journal writes under it, and its trace id in the request's log lines", async () => {
    const body = await signedIntent(devnet, { nonce: '500' })
    const res = await post(traced.baseUrl, '/intents/execute', body, {
      authorization: `Bearer ${apiKey}`,
      traceparent: `00-${callerTraceId}-${callerSpanId}-01`,
    })
    assert.equal(res.status, 200, res.text)
    const intentHash = res.headers.get('x-intent-hash')!

    const { spans, ancestors } = traceOf(callerTraceId)
    const server = spans.filter((s) => s.kind === SpanKind.SERVER)
    assert.equal(server.length, 1, spans.map((s) => s.name).join(', '))
    const request = server[0]!
    assert.equal(request.name, 'POST /intents/execute')
    assert.equal(request.parentSpanContext?.spanId, callerSpanId, "the caller's span is its parent")
    assert.deepEqual(
      {
        route: request.attributes['http.route'],
        method: request.attributes['http.request.method'],
        httpStatus: request.attributes['http.response.status_code'],
        chainId: request.attributes['intent_gateway.chain_id'],
        chainType: request.attributes['intent_gateway.chain_type'],
        status: request.attributes['intent_gateway.erc1066_status'],
        intentHash: request.attributes['intent_gateway.intent_hash'],
        requestId: request.attributes['intent_gateway.request_id'],
      },
      {
        route: '/intents/execute',
        method: 'POST',
        httpStatus: 200,
        chainId: devnet.chain.chainId,
        chainType: 'evm',
        status: '0x11',
        intentHash,
        requestId: res.headers.get('x-request-id'),
      },
    )

    // Under the request span: every RPC call the execute made, and its journal writes in order.
    const under = spans.filter((s) => ancestors(s).includes(request))
    const rpcs = under.filter((s) => s.name.startsWith('rpc '))
    const methods = new Set(rpcs.map((s) => s.attributes['rpc.method']))
    // A passing execute is simulated (eth_simulateV1), with no separate validator read (eth_call);
    // its receipt comes from the block the watch reads (eth_getBlockReceipts), not asked alone.
    for (const m of ['eth_simulateV1', 'eth_sendRawTransaction', 'eth_getBlockReceipts'])
      assert.ok(methods.has(m), `an ${m} span (saw ${[...methods].join(', ')})`)
    for (const r of rpcs) {
      assert.equal(r.kind, SpanKind.CLIENT)
      assert.equal(r.attributes['intent_gateway.chain_id'], devnet.chain.chainId)
      assert.ok(r.duration[0] > 0 || r.duration[1] > 0, "a span over the call's interval")
    }
    const journal = under
      .filter((s) => s.name.startsWith('journal '))
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
    assert.deepEqual(
      journal.map((s) => s.name),
      ['journal claim', 'journal recordSigned', 'journal settle'],
    )
    for (const j of journal) assert.equal(j.attributes['intent_gateway.intent_hash'], intentHash)
    const signed = journal[1]!
    assert.equal(signed.attributes['intent_gateway.transaction_id'], res.body.transactionHash)
    assert.equal(journal[2]!.attributes['intent_gateway.journal.state'], 'mined')
    // The broadcast comes after the signed transaction is journaled (durably, before it leaves).
    const sent = rpcs.find((s) => s.attributes['rpc.method'] === 'eth_sendRawTransaction')!
    assert.ok(hrMs(sent.startTime) >= hrMs(signed.endTime) - 1, 'the broadcast starts after the journal write')

    // The request's log lines carry its trace id: the request line and what the relayer logged.
    const lines = logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.reqId === res.headers.get('x-request-id'))
    const requestLine = lines.find((l) => l.msg === 'request')
    assert.ok(requestLine, logs.slice(-5).join(''))
    assert.equal(requestLine.trace_id, callerTraceId)
    assert.match(String(requestLine.span_id), /^[0-9a-f]{16}$/)

    // Spans are named after what they do (the route, the call), never after a plugin's source text.
    for (const s of spans) assert.ok(s.name.length <= 64, s.name.slice(0, 200))
    // Nothing secret in a span: no key, no API key, no intent signature.
    const text = allAttributeText()
    for (const secret of [devnetAccounts.relayer.slice(2), apiKey, String(body.signature).slice(2)])
      assert.ok(!text.includes(secret), 'a secret reached a span')
  })

  it("traces a paid execute: x402 verify and settle are spans of its trace, and the payment's signature is in none", async () => {
    const body = await signedIntent(devnet, { nonce: '501' })
    const traceId = 'a'.repeat(32)
    let paymentSignature = ''
    // The unmodified @x402/fetch client; the fetch below sees the paid retry's headers.
    const seen: typeof fetch = async (input, init) => {
      const header = (input instanceof Request ? input.headers : new Headers(init?.headers)).get('payment-signature')
      if (header) paymentSignature = header
      return fetch(input, init)
    }
    const { client } = payingClient(devnet)
    const { wrapFetchWithPayment } = await import('@x402/fetch')
    const res = await wrapFetchWithPayment(seen, client)(`${traced.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify(body),
    })
    assert.equal(res.status, 200, await res.clone().text())
    assert.ok(paymentSignature, 'the client paid')
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)

    const { spans, ancestors } = traceOf(traceId)
    // The unpaid first try (402) and the paid one are both requests of the caller's trace.
    const requests = spans.filter((s) => s.kind === SpanKind.SERVER)
    assert.deepEqual(requests.map((s) => s.attributes['http.response.status_code']).sort(), [200, 402])
    assert.deepEqual(requests.map((s) => s.attributes['intent_gateway.erc1066_status']).sort(), ['0x11', '0x55'])
    const paid = requests.find((s) => s.attributes['http.response.status_code'] === 200)!
    const steps = spans.filter((s) => s.name.startsWith('x402 '))
    assert.deepEqual(steps.map((s) => s.name).sort(), ['x402 settle', 'x402 verify'])
    for (const s of steps) {
      assert.ok(ancestors(s).includes(paid), `${s.name} is under the paid request`)
      assert.equal(s.attributes['intent_gateway.payment.network'], devnet.chain.chainId)
      assert.equal(s.attributes['intent_gateway.payment.amount'], '10000')
    }
    assert.equal(steps.find((s) => s.name === 'x402 verify')!.attributes['intent_gateway.payment.valid'], true)
    assert.equal(
      steps.find((s) => s.name === 'x402 settle')!.attributes['intent_gateway.payment.transaction'],
      settlement.transaction,
    )

    const text = allAttributeText()
    const decoded = JSON.parse(Buffer.from(paymentSignature, 'base64').toString('utf8')) as {
      payload: { signature: string }
    }
    assert.ok(
      !text.includes(paymentSignature) && !text.includes(decoded.payload.signature.slice(2)),
      "the payment authorization's signature is in no span",
    )
  })

  it('starts a trace of its own for a request without traceparent, and traces nothing in a gateway built without tracing', async () => {
    const res = await post(traced.baseUrl, '/intents/validate', demoIntent(devnet))
    assert.equal(res.status, 200)
    const server = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER)
    assert.equal(server.length, 1)
    assert.equal(server[0]!.parentSpanContext, undefined, 'a root span')
    assert.equal(server[0]!.attributes['intent_gateway.erc1066_status'], '0x01')
    assert.ok(
      exporter
        .getFinishedSpans()
        .some((s) => s.name === 'rpc eth_call' && s.spanContext().traceId === server[0]!.spanContext().traceId),
    )

    exporter.reset()
    const before = logs.length
    assert.equal(
      (
        await post(untraced.baseUrl, '/intents/validate', demoIntent(devnet), {
          traceparent: `00-${callerTraceId}-${callerSpanId}-01`,
        })
      ).status,
      200,
    )
    assert.equal(
      (
        await post(untraced.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '502' }), {
          authorization: `Bearer ${apiKey}`,
        })
      ).status,
      200,
    )
    assert.deepEqual(
      exporter.getFinishedSpans().map((s) => s.name),
      [],
    )
    const lines = logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>)
    assert.ok(lines.length > 0 && lines.every((l) => !('trace_id' in l)))
  })
})

function hrMs([s, ns]: [number, number]): number {
  return s * 1000 + ns / 1e6
}
