// How many event streams (GET /intents/{hash}/events) are open, per client, per intent and in
// all, in this process. A stream holds a connection for up to its time limit while its intent is
// not final, and needs no key: without these bounds a few addresses held every connection the
// server takes (MAX_CONNECTIONS) and nobody else, not even a health probe, got in.
export type StreamSlotLimits = {
  /** Streams one client (an API key, else its address, an IPv6 one by its /64) may hold. */
  perClient: number
  /** Streams of one intent, all clients together. */
  perIntent: number
  /** Streams in all: a share of MAX_CONNECTIONS, so that other requests always find room. */
  total: number
}

/** Which bound a refused stream reached. */
export type StreamRefusal = 'client' | 'intent' | 'total'

export type StreamSlots = {
  /** Takes a slot: a release (idempotent) to call when the stream ends, or the bound reached. */
  acquire(client: string, intent: string): { release: () => void } | { refused: StreamRefusal }
  open(): number
}

export function createStreamSlots(limits: StreamSlotLimits): StreamSlots {
  const byClient = new Map<string, number>()
  const byIntent = new Map<string, number>()
  let total = 0
  const add = (map: Map<string, number>, key: string, delta: number) => {
    const next = (map.get(key) ?? 0) + delta
    if (next <= 0) map.delete(key)
    else map.set(key, next)
  }
  return {
    acquire(client, intent) {
      if (total >= limits.total) return { refused: 'total' }
      if ((byClient.get(client) ?? 0) >= limits.perClient) return { refused: 'client' }
      if ((byIntent.get(intent) ?? 0) >= limits.perIntent) return { refused: 'intent' }
      total++
      add(byClient, client, 1)
      add(byIntent, intent, 1)
      let released = false
      return {
        release() {
          if (released) return
          released = true
          total--
          add(byClient, client, -1)
          add(byIntent, intent, -1)
        },
      }
    },
    open: () => total,
  }
}
