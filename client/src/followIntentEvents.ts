// Follows GET /intents/{intentHash}/events (server-sent events) until the execution's last event
// (`final` or `dropped`), reconnecting with Last-Event-ID when the connection drops. Says
// `unavailable` when the stream cannot be used (refused, not an event stream, or silent: a proxy
// that buffers), so that the caller polls instead. The SSE framing (fields, comments, multi-line
// data, `retry:`) is eventsource-parser's.
import { createParser } from 'eventsource-parser'
import type { IntentEvent } from './intentEvent.ts'

export type FollowIntentEventsParameters = {
  /** The events URL of one intent. */
  url: string
  /** Sent on every connection (authorization, x-chain-id). */
  headers: Record<string, string>
  fetch: typeof fetch
  /** Epoch ms: past it the follow ends with `timeout`. */
  deadline: number
  onEvent?: ((event: IntentEvent) => void) | undefined
  /**
   * A connection that brings no byte for this long is given up: the gateway writes `retry:` at
   * once and a comment every 15 s, so silence means a buffering proxy or a dead connection.
   * The first connection's silence means the stream is unusable here (polling instead); a later
   * one's is a dropped connection (resumed). Default 5 s for the first byte, 45 s between bytes.
   */
  firstByteMs?: number
  idleMs?: number
  /** Reconnections in a row that bring no event before giving up (`unavailable`). Default 5. */
  maxReconnects?: number
}

export type FollowIntentEventsResult =
  /** The stream delivered the execution's last event (`final` or `dropped`). */
  | { end: 'finished'; lastEvent: IntentEvent; reconnects: number }
  | { end: 'timeout'; reconnects: number }
  /** The stream cannot be used here; `reason` says why (poll instead). */
  | { end: 'unavailable'; reason: string; reconnects: number }

/** The events after which the gateway ends the stream. */
const lastTypes = new Set(['final', 'dropped'])

export async function followIntentEvents({
  url,
  headers,
  fetch,
  deadline,
  onEvent,
  firstByteMs = 5_000,
  idleMs = 45_000,
  maxReconnects = 5,
}: FollowIntentEventsParameters): Promise<FollowIntentEventsResult> {
  let lastEventId: string | undefined
  let retryMs = 1_000
  let reconnects = 0
  let fruitless = 0
  for (let connection = 0; ; connection++) {
    if (Date.now() >= deadline) return { end: 'timeout', reconnects }
    const controller = new AbortController()
    let why: 'deadline' | 'silent' | undefined
    const stop = (reason: 'deadline' | 'silent') => {
      why ??= reason
      controller.abort()
    }
    const deadlineTimer = setTimeout(() => stop('deadline'), deadline - Date.now())
    let silenceTimer = setTimeout(() => stop('silent'), firstByteMs)
    let last: IntentEvent | undefined
    let delivered = 0
    const parser = createParser({
      onEvent(message) {
        // The last event id persists across events without one, as EventSource keeps it.
        if (message.id !== undefined) lastEventId = message.id
        const event = toIntentEvent(message.data)
        if (!event) return
        delivered++
        last = event
        onEvent?.(event)
      },
      onRetry(ms) {
        retryMs = ms
      },
    })
    try {
      let response: Response
      try {
        response = await fetch(url, {
          headers: {
            ...headers,
            accept: 'text/event-stream',
            ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
          },
          signal: controller.signal,
        })
      } catch (err) {
        if (why === 'deadline') return { end: 'timeout', reconnects }
        // Unreachable or silent on the first try: polling says what is wrong. Later: try again.
        if (connection === 0 || ++fruitless > maxReconnects)
          return {
            end: 'unavailable',
            reason: why === 'silent' ? `no answer within ${firstByteMs} ms` : `cannot connect: ${describe(err)}`,
            reconnects,
          }
        reconnects++
        await sleep(Math.min(retryMs, deadline - Date.now()))
        continue
      }
      const type = response.headers.get('content-type') ?? ''
      if (response.status !== 200 || !/^text\/event-stream/i.test(type) || !response.body) {
        await response.body?.cancel().catch(() => {})
        return {
          end: 'unavailable',
          reason:
            response.status !== 200 ? `HTTP ${response.status}` : `not an event stream (${type || 'no content type'})`,
          reconnects,
        }
      }
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      let bytes = 0
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          bytes += value.byteLength
          clearTimeout(silenceTimer)
          silenceTimer = setTimeout(() => stop('silent'), idleMs)
          parser.feed(decoder.decode(value, { stream: true }))
          if (last && lastTypes.has(last.type)) {
            await reader.cancel().catch(() => {})
            return { end: 'finished', lastEvent: last, reconnects }
          }
        }
      } catch {
        if (why === 'deadline') return { end: 'timeout', reconnects }
        // A first connection that stayed silent: a proxy that buffers the stream.
        if (why === 'silent' && connection === 0 && bytes === 0)
          return {
            end: 'unavailable',
            reason: `no event stream within ${firstByteMs} ms (a proxy that buffers?)`,
            reconnects,
          }
        // Otherwise cut mid-stream: resumed below.
      }
    } finally {
      clearTimeout(deadlineTimer)
      clearTimeout(silenceTimer)
    }
    // The stream ended or was cut before the last event: resume after the last event received.
    fruitless = delivered > 0 ? 0 : fruitless + 1
    if (fruitless > maxReconnects)
      return { end: 'unavailable', reason: `the stream ended ${fruitless} times in a row without an event`, reconnects }
    reconnects++
    await sleep(Math.min(retryMs, deadline - Date.now()))
  }
}

function toIntentEvent(data: string): IntentEvent | undefined {
  try {
    const event = JSON.parse(data) as Partial<IntentEvent>
    return typeof event === 'object' && event !== null && typeof event.id === 'string' && typeof event.type === 'string'
      ? (event as IntentEvent)
      : undefined
  } catch {
    return undefined
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
