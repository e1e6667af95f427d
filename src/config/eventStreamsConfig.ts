// The bounds on event streams (GET /intents/{hash}/events, http/createStreamSlots.ts): how many one
// client may hold (SSE_MAX_STREAMS_PER_CLIENT, default 4) and how many may be open in all
// (SSE_MAX_STREAMS, default a quarter of MAX_CONNECTIONS), so that streams never take the
// connections everything else needs. Reads its own variables and reports its own problems.
import { readInteger } from './readInteger.ts'

export type EventStreamsConfig = {
  /** Streams one client (an API key, else its address, an IPv6 one by its /64) may hold. */
  maxPerClient: number
  /** Streams of one intent, all clients together (16). */
  maxPerIntent: number
  /** Streams open in all. */
  max: number
}

export function eventStreamsConfig(
  env: Record<string, string | undefined>,
  { maxConnections }: { maxConnections: number },
): { value: EventStreamsConfig; problems: string[] } {
  const problems: string[] = []
  const maxPerClient =
    readInteger(env, 'SSE_MAX_STREAMS_PER_CLIENT', { min: 1, max: 100_000, fallback: 4 }, problems) ?? 4
  const fallback = Math.max(1, Math.floor(maxConnections / 4))
  const max = readInteger(env, 'SSE_MAX_STREAMS', { min: 1, max: 1_000_000, fallback }, problems) ?? fallback
  if (env.SSE_MAX_STREAMS?.trim() && max >= maxConnections) {
    problems.push(
      `SSE_MAX_STREAMS: ${max} would let event streams hold every connection (MAX_CONNECTIONS is ${maxConnections}); keep it below, by default a quarter`,
    )
  }
  return { value: { maxPerClient, maxPerIntent: 16, max }, problems }
}
