// What the gateway traces with, from one tracer provider: the request span of every HTTP request
// (Fastify's own instrumentation), child spans for RPC calls, journal writes and x402 payment
// steps (wrappers around the parts createGateway builds), and the trace id in log lines. Built by
// startTracing for the process, or by a test over an in-memory exporter.
import type { TracerProvider } from '@opentelemetry/api'
import type { FacilitatorClient } from '@x402/core/server'
import type { FastifyInstance } from 'fastify'
import { gatewayVersion } from '../http/plugins/gatewayVersion.ts'
import type { RpcRecorder } from '../metrics/createMetrics.ts'
import type { Journal } from '../ports/journal.ts'
import { createAppInstrumentation } from './createAppInstrumentation.ts'
import { traceFacilitator } from './traceFacilitator.ts'
import { traceJournal } from './traceJournal.ts'
import { traceLogFields } from './traceLogFields.ts'
import { traceRpcRecorder } from './traceRpcRecorder.ts'

export type Tracing = {
  /** Adds the request span to an app under construction (buildApp calls it before any route). */
  instrument(app: FastifyInstance): void
  traceJournal(journal: Journal): Journal
  traceRpcRecorder<R extends RpcRecorder>(recorder: R): R
  traceFacilitator<F extends FacilitatorClient>(client: F): F
  /** pino's `mixin`: the active span's trace_id, span_id and trace_flags on every log line. */
  logFields(): Record<string, string>
}

export function createTracing({ tracerProvider }: { tracerProvider: TracerProvider }): Tracing {
  const tracer = tracerProvider.getTracer('intent-gateway', gatewayVersion)
  return {
    instrument: createAppInstrumentation({ tracerProvider }),
    traceJournal: (journal) => traceJournal(journal, tracer),
    traceRpcRecorder: (recorder) => traceRpcRecorder(recorder, tracer),
    traceFacilitator: (client) => traceFacilitator(client, tracer),
    logFields: traceLogFields,
  }
}
