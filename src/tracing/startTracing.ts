// Starts the OpenTelemetry SDK for the process (main.ts loads this module only when tracing is
// configured): a tracer provider registered globally (W3C trace context, AsyncLocalStorage
// context), spans batched to the OTLP/HTTP exporter, and a shutdown that flushes what is left.
// The SDK reads its own variables (OTEL_BSP_*, OTEL_EXPORTER_OTLP_*, OTEL_RESOURCE_ATTRIBUTES) but
// not the sampler, which tracingConfig reads: see below.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { gatewayVersion } from '../http/plugins/gatewayVersion.ts'
import { createTracing, type Tracing } from './createTracing.ts'
import type { TracingConfig } from './tracingConfig.ts'

export type StartedTracing = Tracing & {
  /** Exports the spans still buffered, then stops; resolves even when the collector does not answer. */
  shutdown(): Promise<void>
}

export function startTracing(config: Extract<TracingConfig, { enabled: true }>): StartedTracing {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': gatewayVersion }))
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, as the specification says, win.
    .merge(detectResources({ detectors: [envDetector] }))
  const processor =
    config.exporter === 'otlp'
      ? new BatchSpanProcessor(new OTLPTraceExporter())
      : new SimpleSpanProcessor(new ConsoleSpanExporter())
  // A caller's traceparent is continued (its trace id, our span under its span) but its sampled
  // flag decides nothing: the configured ratio does, as for a trace of our own. Otherwise any
  // caller could have every request traced and exported at ratio 0. Spans under one of ours
  // (local parents) follow it, as parent-based sampling does.
  const ratio = new TraceIdRatioBasedSampler(config.sampleRatio)
  const sampler = new ParentBasedSampler({ root: ratio, remoteParentSampled: ratio, remoteParentNotSampled: ratio })
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor], sampler })
  provider.register()
  const tracing = createTracing({ tracerProvider: provider })
  return {
    ...tracing,
    async shutdown() {
      await provider.shutdown().catch(() => undefined)
    },
  }
}
