// What a caller can make the gateway trace: startTracing (the process's SDK, exporting over
// OTLP/HTTP to a local receiver) with a Fastify app instrumented as buildApp instruments it. A
// caller's `traceparent` with its sampled flag set does not force a trace at ratio 0, and the
// query string a caller sends is in no span (a token there would be exported with it).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify from 'fastify'
import { startTracing } from '../../src/tracing/startTracing.ts'
import { readTracingConfig } from '../../src/tracing/tracingConfig.ts'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlpReceiver.ts'

describe('tracing: what a caller decides', () => {
  let receiver: OtlpReceiver
  before(async () => {
    receiver = await startOtlpReceiver()
  })
  after(async () => {
    await receiver?.close()
  })

  /** startTracing as main.ts starts it with these OTEL_* variables, and an app instrumented by it. */
  const traced = async (env: Record<string, string>) => {
    for (const name of ['OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG']) delete process.env[name]
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env })
    const read = readTracingConfig(process.env)
    assert.deepEqual(read.problems, [])
    assert.ok(read.value.enabled)
    const tracing = startTracing(read.value)
    const app = Fastify()
    tracing.instrument(app)
    app.get('/chains', async () => ({ chains: [] }))
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    return { tracing, app, baseUrl }
  }

  it('keeps the query string out of the request span (url.path is the path alone)', async () => {
    const { tracing, app, baseUrl } = await traced({})
    const traceId = '1'.repeat(32)
    const res = await fetch(`${baseUrl}/chains?access_token=query-secret-0123456789`, {
      headers: { traceparent: `00-${traceId}-${'2'.repeat(16)}-01` },
    })
    assert.equal(res.status, 200)
    await app.close()
    await tracing.shutdown()
    const spans = receiver.spans.filter((s) => s.traceId === traceId)
    const request = spans.find((s) => s.kind === 2)
    assert.ok(request, JSON.stringify(spans.map((s) => s.name)))
    assert.equal(request.attributes['url.path'], '/chains')
    assert.ok(!JSON.stringify(spans).includes('query-secret'), 'the query string reached a span')
  })

  it("samples a caller's trace at the configured ratio: at 0, a traceparent flagged sampled is not traced", async () => {
    const { tracing, app, baseUrl } = await traced({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    })
    const traceId = '3'.repeat(32)
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${baseUrl}/chains`, { headers: { traceparent: `00-${traceId}-${'4'.repeat(16)}-01` } })
      assert.equal(res.status, 200)
    }
    await app.close()
    await tracing.shutdown()
    assert.deepEqual(
      receiver.spans.filter((s) => s.traceId === traceId).map((s) => s.name),
      [],
    )
  })
})
