// RPC calls as child spans: the endpoint pools and the Solana and Sui adapters report every call
// (method, duration, failure) to the RpcRecorder after it returns, inside the caller's async
// context; this wrapper records it as a span over the same interval, under the span active there.
// Calls outside any trace (the reconciler's, a health probe's) start no trace of their own.
import { context, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api'
import type { RpcRecorder } from '../metrics/createMetrics.ts'

export function traceRpcRecorder<R extends RpcRecorder>(recorder: R, tracer: Tracer): R {
  return {
    ...recorder,
    observeRpc(call) {
      recorder.observeRpc(call)
      const parent = context.active()
      if (!trace.getSpan(parent)) return
      // performance.now() times, not epoch ones: the SDK puts them on its spans' own clock (each span
      // anchored to Date.now() as it starts), so an RPC span sits where it ran among the journal's
      // and the request's spans. timeOrigin + performance.now() drifts apart from Date.now().
      const end = performance.now()
      const span = tracer.startSpan(
        `rpc ${call.method}`,
        {
          kind: SpanKind.CLIENT,
          startTime: end - call.seconds * 1000,
          attributes: { 'rpc.system': 'jsonrpc', 'rpc.method': call.method, 'intent_gateway.chain_id': call.chain },
        },
        parent,
      )
      if (call.failure) {
        span.setAttribute('error.type', call.failure)
        span.setStatus({ code: SpanStatusCode.ERROR, message: call.failure })
      }
      span.end(end)
    },
  }
}
