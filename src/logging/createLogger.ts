// The gateway's pino logger: JSON lines, bigint as strings, and errors whose messages and stacks
// have every URL redacted, since RPC errors quote the URL (and its API key) they called.
import { type DestinationStream, type Logger, pino, stdSerializers } from 'pino'
import { redactUrlsIn } from '../config/redactUrl.ts'

export type CreateLoggerParameters = {
  level: string
  destination?: DestinationStream | undefined
  /** Fields added to every line: with tracing on, the active span's trace and span ids (tracing/traceLogFields.ts). */
  mixin?: (() => Record<string, unknown>) | undefined
}

export function createLogger({ level, destination, mixin }: CreateLoggerParameters): Logger {
  return pino(
    {
      level,
      base: { service: 'intent-gateway' },
      // Only when given: with tracing off, no call per line.
      ...(mixin ? { mixin } : {}),
      serializers: { err: serializeError },
      hooks: {
        // Redact URLs in free-text messages too; drop empty messages (Fastify's silenced
        // listen lines: main.ts logs one line of its own naming the listen address).
        logMethod(args, method) {
          if (args.length === 1 && args[0] === '') return
          method.apply(this, args.map((a) => (typeof a === 'string' ? redactUrlsIn(a) : a)) as Parameters<typeof method>)
        },
      },
    },
    // Production logs are written asynchronously in 4 KiB chunks (one write per log line was a
    // tenth of a request's cost); main.ts flushes them every second, after start-up and on exit.
    destination ?? pino.destination({ sync: false, minLength: 4096 }),
  )
}

function serializeError(err: unknown) {
  const serialized = stdSerializers.err(err as Error) as unknown as Record<string, unknown>
  return redactDeep(serialized, 0)
}

function redactDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactUrlsIn(value)
  if (typeof value === 'bigint') return value.toString()
  if (depth > 8 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, depth + 1)]))
}
