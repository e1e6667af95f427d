// The active span's ids for a log line (pino's `mixin`), named as OpenTelemetry's log data model
// and its pino instrumentation name them; nothing outside a span.
import { context, trace } from '@opentelemetry/api'

const none: Record<string, string> = {}

export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active())
  if (!span) return none
  const { traceId, spanId, traceFlags } = span.spanContext()
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}` }
}
