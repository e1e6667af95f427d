// RPC spans are on the same clock as the SDK's own spans. The SDK anchors each span to Date.now()
// when it starts and times it with performance.now(); a time given as an epoch number is taken as
// is. The RPC span's times were epoch numbers read off performance.timeOrigin + performance.now(),
// which stands apart from Date.now() by however far the two clocks drifted in the process (CI run
// 123: a broadcast's span began before the journal write that precedes it had ended).
import assert from 'node:assert/strict'
import { it, mock } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { hrTimeToMilliseconds } from '@opentelemetry/core'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { RpcRecorder } from '../metrics/createMetrics.ts'
import { traceRpcRecorder } from './traceRpcRecorder.ts'

it('an RPC span that follows another span in time follows it in the trace, with Date.now() 50 ms off the performance clock', async () => {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  provider.register()
  const tracer = provider.getTracer('test')
  const realNow = Date.now
  mock.method(Date, 'now', () => realNow() + 50)
  try {
    const recorder = traceRpcRecorder({ observeRpc() {} } as RpcRecorder, tracer)
    const parent = tracer.startSpan('request')
    await context.with(trace.setSpan(context.active(), parent), async () => {
      const before = tracer.startSpan('journal recordSigned')
      before.end()
      await new Promise((r) => setTimeout(r, 5))
      // A call of 2 ms that began after the write ended.
      recorder.observeRpc({ chain: 'eip155:1', method: 'eth_sendRawTransaction', seconds: 0.002 })
    })
    parent.end()
  } finally {
    mock.restoreAll()
  }
  const spans = exporter.getFinishedSpans()
  const written = spans.find((s) => s.name === 'journal recordSigned')!
  const sent = spans.find((s) => s.name === 'rpc eth_sendRawTransaction')!
  const ms = hrTimeToMilliseconds
  assert.ok(
    ms(sent.startTime) >= ms(written.endTime),
    `the call starts ${(ms(sent.startTime) - ms(written.endTime)).toFixed(1)} ms after the write ended`,
  )
  assert.ok(Math.abs(ms(sent.endTime) - ms(sent.startTime) - 2) < 0.5, 'the span lasts the call')
  await provider.shutdown()
})
