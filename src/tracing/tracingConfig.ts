// Whether the gateway traces, read from the standard OpenTelemetry variables: off unless an OTLP
// endpoint (or OTEL_TRACES_EXPORTER) asks for it, and always off with OTEL_SDK_DISABLED=true. The
// SDK reads the rest of the OTEL_* variables itself (sampler, batch sizes, headers, resource);
// this only decides whether it is loaded at all and refuses what it could not honour.
import { redactUrl } from '../config/redactUrl.ts'

export type TracingConfig =
  | { enabled: false }
  | {
      enabled: true
      /** Where spans go: OTLP over HTTP (JSON), or printed to stdout (OTEL_TRACES_EXPORTER=console). */
      exporter: 'otlp' | 'console'
      /** The traces endpoint, redacted (for the start-up line): the exporter reads the real one. */
      endpoint: string | undefined
      serviceName: string
      /**
       * The share of traces sampled (OTEL_TRACES_SAMPLER and its _ARG): the same for a caller's
       * `traceparent` as for a trace of our own, whatever the caller's sampled flag says
       * (startTracing), so that a caller cannot make the gateway trace at ratio 0.
       */
      sampleRatio: number
    }

type Env = Record<string, string | undefined>

/** The result: the configuration, or the problems (named by variable) to add to the start-up error. */
export function readTracingConfig(env: Env): { value: TracingConfig; problems: string[] } {
  const problems: string[] = []
  const disabled = (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase()
  if (disabled === 'true') return { value: { enabled: false }, problems }
  const set = (name: string) => {
    const value = env[name]?.trim()
    return value ? value : undefined
  }
  const exporters = (set('OTEL_TRACES_EXPORTER') ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean)
  for (const e of exporters) {
    if (!['otlp', 'console', 'none'].includes(e))
      problems.push(`OTEL_TRACES_EXPORTER: "${e}" is not supported (otlp, console or none)`)
  }
  const tracesEndpoint = set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  const baseEndpoint = set('OTEL_EXPORTER_OTLP_ENDPOINT')
  for (const [name, value] of [
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', baseEndpoint],
  ] as const) {
    if (value !== undefined && !/^https?:$/.test(safeProtocol(value)))
      problems.push(`${name}: ${redactUrl(value)} is not an http(s) URL`)
  }
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = set(name)
    // The exporter installed speaks OTLP over HTTP with JSON bodies; a collector's HTTP port takes both encodings.
    if (protocol !== undefined && protocol !== 'http/json' && protocol !== 'http/protobuf')
      problems.push(`${name}: "${protocol}" is not supported (http/json; http/protobuf endpoints take JSON too)`)
  }
  const sampleRatio = readSampleRatio(set('OTEL_TRACES_SAMPLER'), set('OTEL_TRACES_SAMPLER_ARG'), problems)
  const wanted =
    exporters.length > 0 ? exporters.filter((e) => e !== 'none') : tracesEndpoint || baseEndpoint ? ['otlp'] : []
  if (wanted.length === 0 || problems.length > 0) return { value: { enabled: false }, problems }
  const exporter = wanted.includes('otlp') ? 'otlp' : 'console'
  const endpoint =
    exporter === 'otlp'
      ? redactUrl(tracesEndpoint ?? `${(baseEndpoint ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`)
      : undefined
  return {
    value: {
      enabled: true,
      exporter,
      endpoint,
      serviceName: set('OTEL_SERVICE_NAME') ?? 'intent-gateway',
      sampleRatio,
    },
    problems,
  }
}

const samplers = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
]

/** OTEL_TRACES_SAMPLER (default parentbased_always_on) as a ratio; the parent-based ones too follow no caller's flag. */
function readSampleRatio(sampler: string | undefined, arg: string | undefined, problems: string[]): number {
  const name = (sampler ?? 'parentbased_always_on').toLowerCase()
  if (!samplers.includes(name)) {
    problems.push(`OTEL_TRACES_SAMPLER: "${name.slice(0, 40)}" is not supported (${samplers.join(', ')})`)
    return 1
  }
  if (!name.endsWith('traceidratio')) return name.endsWith('always_off') ? 0 : 1
  if (arg === undefined) return 1
  const ratio = Number(arg)
  if (!/^(0|1|0?\.[0-9]+|1\.0*)$/.test(arg) || !(ratio >= 0 && ratio <= 1)) {
    problems.push(`OTEL_TRACES_SAMPLER_ARG: "${arg.slice(0, 20)}" is not a ratio from 0 to 1`)
    return 1
  }
  return ratio
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol
  } catch {
    return ''
  }
}
