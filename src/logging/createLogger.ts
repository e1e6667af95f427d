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
          method.apply(
            this,
            args.map((a) => (typeof a === 'string' ? redactUrlsIn(a) : a)) as Parameters<typeof method>,
          )
        },
      },
    },
    // Production logs are written asynchronously in 4 KiB chunks (one write per log line was a
    // tenth of a request's cost); main.ts flushes them every second, after start-up and on exit.
    destination ?? pino.destination({ sync: false, minLength: 4096 }),
  )
}

function serializeError(err: unknown) {
  // pino's serializer tags each error it walks (a symbol property), which throws on a frozen error
  // (@solana/kit freezes some), the top one or any it reaches (its cause, an error in its own
  // fields): such errors are copied first. A line that still cannot be written never throws out of
  // the log call: a logger must not take the process down.
  try {
    const serialized = stdSerializers.err(extensible(err, 0) as Error) as unknown as Record<string, unknown>
    return redactDeep(serialized, 0)
  } catch {
    const e = err as { name?: unknown; message?: unknown } | null
    return redactDeep(
      { type: String(e?.name ?? typeof err), message: String(e?.message ?? err), serializer: 'failed' },
      0,
    )
  }
}

/**
 * `err` itself when it and everything pino's serializer walks in it can be tagged; else a copy.
 * The serializer walks every own field that looks like an error (an object with a string
 * `message`, such as @solana/kit's frozen `context` of an HTTP error), and the cause.
 */
function extensible(err: unknown, depth: number): unknown {
  if (
    err === null ||
    typeof err !== 'object' ||
    typeof (err as { message?: unknown }).message !== 'string' ||
    depth > 8
  )
    return err
  const source = err as Record<string, unknown> & { cause?: unknown }
  const fields = Object.entries(source).map(([k, v]) => [k, k === 'cause' ? v : extensible(v, depth + 1)] as const)
  const cause = source.cause === undefined ? undefined : extensible(source.cause, depth + 1)
  const changed = cause !== source.cause || fields.some(([k, v]) => v !== source[k])
  if (Object.isExtensible(err) && !changed) return err
  if (!(err instanceof Error)) return Object.fromEntries(fields)
  const copy = new Error(err.message)
  for (const [k, v] of fields) (copy as unknown as Record<string, unknown>)[k] = v
  copy.name = err.name
  if (err.stack !== undefined) copy.stack = err.stack
  if (cause !== undefined) copy.cause = cause
  Object.defineProperty(copy, 'constructor', { value: err.constructor, enumerable: false })
  return copy
}

function redactDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactUrlsIn(value)
  if (typeof value === 'bigint') return value.toString()
  if (depth > 8 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, depth + 1)]))
}
