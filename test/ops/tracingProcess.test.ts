// Tracing in the gateway as a process (src/main.ts), configured only by the standard OTEL_*
// variables, exporting over OTLP/HTTP to a local receiver that decodes what the exporter sends:
// the request's spans arrive with the service's name, in the caller's trace, and the spans still
// batched when Ctrl-C arrives are exported before the process exits. Bad OTEL_* settings stop it
// at start-up with the variable named.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlpReceiver.ts'
import { runGateway, waitFor } from '../support/runGateway.ts'

describe('tracing in the gateway process (OTLP/HTTP)', () => {
  let receiver: OtlpReceiver
  before(async () => {
    receiver = await startOtlpReceiver()
  })
  after(async () => {
    await receiver?.close()
  })

  it('exports the spans of a request to OTEL_EXPORTER_OTLP_ENDPOINT, the last ones on Ctrl-C', async () => {
    const gw = runGateway({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'gateway-under-test',
        // Long enough that only the shutdown's flush can deliver them.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
    })
    try {
      await waitFor(
        () => gw.stdout().includes('Press Ctrl-C') || gw.child.exitCode !== null,
        60_000,
        'the devnet banner',
      )
      const out = gw.stdout()
      const baseUrl = /running on its embedded devnet at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!
      assert.match(out, /"msg":"tracing on \(OpenTelemetry\)"/)
      // The first printed validate, with the caller's trace.
      const [, url, chainId, body] =
        /^curl -i -X POST (\S+\/intents\/validate) -H 'Content-Type: application\/json' -H 'X-Chain-Id: (\S+)' -d '(.*)'$/m.exec(
          out,
        )!
      const traceId = '0af7651916cd43dd8448eb211c80319c'
      const res = await fetch(url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-chain-id': chainId!,
          traceparent: `00-${traceId}-b7ad6b7169203331-01`,
        },
        body: body!,
      })
      assert.equal(res.status, 200)
      assert.ok(baseUrl)
      assert.equal(receiver.spans.filter((s) => s.traceId === traceId).length, 0, 'still batched')

      gw.child.kill('SIGINT')
      assert.equal(await gw.exit, 0)
      const spans = receiver.spans.filter((s) => s.traceId === traceId)
      const request = spans.find((s) => s.name === 'POST /intents/validate')
      assert.ok(request, JSON.stringify(receiver.spans.map((s) => s.name)))
      assert.equal(request.kind, 2, 'SERVER')
      assert.equal(request.parentSpanId, 'b7ad6b7169203331')
      assert.equal(request.resource['service.name'], 'gateway-under-test')
      assert.equal(request.attributes['intent_gateway.erc1066_status'], '0x01')
      assert.equal(request.attributes['intent_gateway.chain_id'], `eip155:${chainId}`)
      assert.equal(request.attributes['http.response.status_code'], 200)
      assert.ok(
        spans.some((s) => s.name === 'rpc eth_call' && s.kind === 3),
        'the validator call, a CLIENT span',
      )
      assert.ok(
        receiver.requests.every((r) => r.path === '/v1/traces' && r.contentType?.startsWith('application/json')),
      )
      // The request's log line carries the same trace id.
      const line = gw
        .stdout()
        .split('\n')
        .find((l) => l.includes('"msg":"request"') && l.includes('/intents/validate'))
      assert.ok(line?.includes(`"trace_id":"${traceId}"`), line)
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL')
    }
  })

  it("stops at start-up on OTEL_* settings it cannot honour, naming them, without printing the endpoint's credentials", async () => {
    const gw = runGateway({
      env: {
        NODE_ENV: 'production',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:s3cret@collector/',
        OTEL_TRACES_EXPORTER: 'zipkin',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      },
    })
    assert.equal(await gw.exit, 1)
    const err = gw.stderr()
    assert.match(err, /OTEL_TRACES_EXPORTER: "zipkin" is not supported \(otlp, console or none\)/)
    assert.match(err, /OTEL_EXPORTER_OTLP_ENDPOINT: ftp:\/\/\*\*\*@collector\/ is not an http\(s\) URL/)
    assert.match(err, /OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported/)
    assert.match(err, /PORT: required/, 'listed with the other problems')
    assert.ok(!err.includes('s3cret'))
  })
})
