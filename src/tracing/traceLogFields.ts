// The active span's ids for a log line (pino's `mixin`), named as OpenTelemetry's log data model
// and its pino instrumentation name them; nothing outside a span.
import { context, trace } from '@opentelemetry/api'

export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active())
  // A fresh object every time: pino merges each line's own fields into what the mixin returns, so
  // a shared one would carry every earlier line's fields into the next line written outside a span.
  if (!span) return {}
  const { traceId, spanId, traceFlags } = span.spanContext()
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}` }
}
