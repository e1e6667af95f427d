import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { readTracingConfig } from './tracingConfig.ts'

describe('readTracingConfig', () => {
  it('is off with nothing set, with OTEL_SDK_DISABLED=true, and with OTEL_TRACES_EXPORTER=none', () => {
    assert.deepEqual(readTracingConfig({}), { value: { enabled: false }, problems: [] })
    assert.deepEqual(readTracingConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).value, {
      enabled: false,
    })
    assert.deepEqual(
      readTracingConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).value,
      { enabled: false },
    )
    assert.deepEqual(readTracingConfig({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'zipkin' }), {
      value: { enabled: false },
      problems: [],
    })
    assert.deepEqual(
      readTracingConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).value,
      { enabled: false },
    )
  })

  it('is on with an OTLP endpoint: the traces endpoint as the exporter derives it, redacted, and the service name', () => {
    assert.deepEqual(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).value, {
      enabled: true,
      exporter: 'otlp',
      endpoint: 'http://collector:4318/v1/traces',
      serviceName: 'intent-gateway',
      sampleRatio: 1,
    })
    assert.deepEqual(
      readTracingConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:pw@otlp.example/v1/traces?api_key=abc',
        OTEL_SERVICE_NAME: 'gw-eu',
      }).value,
      {
        enabled: true,
        exporter: 'otlp',
        endpoint: 'https://***@otlp.example/v1/traces?api_key=***',
        serviceName: 'gw-eu',
        sampleRatio: 1,
      },
    )
    assert.deepEqual(readTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).value, {
      enabled: true,
      exporter: 'otlp',
      endpoint: 'http://localhost:4318/v1/traces',
      serviceName: 'intent-gateway',
      sampleRatio: 1,
    })
    assert.deepEqual(readTracingConfig({ OTEL_TRACES_EXPORTER: 'console' }).value, {
      enabled: true,
      exporter: 'console',
      endpoint: undefined,
      serviceName: 'intent-gateway',
      sampleRatio: 1,
    })
    assert.equal(
      readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })
        .value.enabled,
      true,
    )
  })

  it('reads the sampler as a ratio, parent-based or not (startTracing applies it to remote parents too)', () => {
    const ratio = (env: Record<string, string>) => {
      const { value, problems } = readTracingConfig({ OTEL_TRACES_EXPORTER: 'console', ...env })
      return problems.length > 0 ? problems : value.enabled && value.sampleRatio
    }
    assert.equal(ratio({}), 1)
    assert.equal(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }), 0)
    assert.equal(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }), 0.25)
    assert.equal(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' }), 1)
    assert.equal(ratio({ OTEL_TRACES_SAMPLER: 'always_off' }), 0)
    assert.equal(ratio({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }), 0)
    assert.equal(ratio({ OTEL_TRACES_SAMPLER: 'always_on' }), 1)
    assert.deepEqual(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }), [
      'OTEL_TRACES_SAMPLER_ARG: "1.5" is not a ratio from 0 to 1',
    ])
    assert.deepEqual(ratio({ OTEL_TRACES_SAMPLER: 'jaeger_remote' }), [
      'OTEL_TRACES_SAMPLER: "jaeger_remote" is not supported (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)',
    ])
  })

  it('names every setting it cannot honour, with URLs redacted', () => {
    const { value, problems } = readTracingConfig({
      OTEL_TRACES_EXPORTER: 'otlp,jaeger',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
    })
    assert.deepEqual(value, { enabled: false })
    assert.deepEqual(problems, [
      'OTEL_TRACES_EXPORTER: "jaeger" is not supported (otlp, console or none)',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: <invalid url> is not an http(s) URL',
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" is not supported (http/json; http/protobuf endpoints take JSON too)',
    ])
  })

  it('leaves the SDK out of what loads without tracing: only main.ts imports it, dynamically, and the request path imports types alone', () => {
    const src = new URL('../', import.meta.url)
    const staticImports = (file: string) =>
      [...readFileSync(new URL(file, src), 'utf8').matchAll(/^import (?!type )[^'"]*?from '([^']+)'/gm)].map(
        (m) => m[1]!,
      )
    for (const file of [
      'main.ts',
      'createGateway.ts',
      'app.ts',
      'logging/createLogger.ts',
      'payments/startPayments.ts',
    ]) {
      const loaded = staticImports(file).filter(
        (i) =>
          i.startsWith('@opentelemetry/') ||
          i.startsWith('@fastify/otel') ||
          (i.includes('/tracing/') && !i.endsWith('/tracingConfig.ts')),
      )
      assert.deepEqual(loaded, [], file)
    }
    assert.match(
      readFileSync(new URL('main.ts', src), 'utf8'),
      /tracingConfig\.enabled\s*\?\s*\(await import\('\.\/tracing\/startTracing\.ts'\)\)/,
    )
  })
})
