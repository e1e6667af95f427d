// Sliding-window counters for standing and budgets: each key's window is cut into buckets, and a
// total is the sum of the buckets still inside it. In this process's memory, or in Redis (shared
// by every instance, the same store as the rate limits). Amounts are doubles: a budget is a
// circuit breaker, exact to 15 significant digits, not an account.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'

export type WindowCounters = {
  add(key: string, amount: number): Promise<void>
  /** The key's total over the window, and the seconds until the oldest part of it leaves the window. */
  total(key: string): Promise<{ total: number; retryAfterSeconds: number }>
}

export type CreateWindowCountersParameters = {
  windowMs: number
  /** Shared counts; default: this process's memory. */
  redis?: Redis | undefined
  /** Key prefix in Redis (tests use their own). */
  prefix?: string | undefined
  logger: Logger
  /** The clock (tests). */
  now?: () => number
}

const buckets = 12

export function createWindowCounters({ windowMs, redis, prefix = 'intent-gateway:limits:', logger, now = Date.now }: CreateWindowCountersParameters): WindowCounters {
  const bucketMs = Math.max(1, Math.ceil(windowMs / buckets))
  const bucketOf = (t: number) => Math.floor(t / bucketMs)
  /** The buckets still inside the window at `t`, and when the oldest of those with an amount leaves it. */
  const sum = (entries: Iterable<[number, number]>, t: number) => {
    const oldestKept = bucketOf(t) - buckets + 1
    let total = 0
    let oldest: number | undefined
    for (const [bucket, amount] of entries) {
      if (bucket < oldestKept || amount === 0) continue
      total += amount
      if (oldest === undefined || bucket < oldest) oldest = bucket
    }
    const retryAfterSeconds = oldest === undefined ? 0 : Math.max(1, Math.ceil(((oldest + buckets) * bucketMs - t) / 1000))
    return { total, retryAfterSeconds, oldestKept }
  }

  if (!redis) {
    const memory = new Map<string, Map<number, number>>()
    return {
      async add(key, amount) {
        const t = now()
        let entry = memory.get(key)
        if (!entry) memory.set(key, (entry = new Map()))
        const bucket = bucketOf(t)
        entry.set(bucket, (entry.get(bucket) ?? 0) + amount)
        for (const b of entry.keys()) if (b <= bucket - buckets) entry.delete(b)
      },
      async total(key) {
        const entry = memory.get(key)
        if (!entry) return { total: 0, retryAfterSeconds: 0 }
        const { total, retryAfterSeconds } = sum(entry, now())
        if (total === 0) memory.delete(key)
        return { total, retryAfterSeconds }
      },
    }
  }

  const log = logger.child({ module: 'limits' })
  // Redis down: counts are skipped (fail open, as the rate limits do), logged once per minute.
  let warnedAt = 0
  const skipped = (err: unknown) => {
    if (Date.now() - warnedAt < 60_000) return
    warnedAt = Date.now()
    log.warn({ err: { message: (err as Error).message } }, 'Redis unreachable: standing and budgets are not counted until it is back')
  }
  return {
    async add(key, amount) {
      const t = now()
      try {
        await redis
          .multi()
          .hincrbyfloat(prefix + key, String(bucketOf(t)), amount)
          .pexpire(prefix + key, windowMs + bucketMs)
          .exec()
      } catch (err) {
        skipped(err)
      }
    },
    async total(key) {
      let fields: Record<string, string>
      try {
        fields = await redis.hgetall(prefix + key)
      } catch (err) {
        skipped(err)
        return { total: 0, retryAfterSeconds: 0 }
      }
      const t = now()
      const entries = Object.entries(fields).map(([b, v]): [number, number] => [Number(b), Number(v)])
      const { total, retryAfterSeconds, oldestKept } = sum(entries, t)
      const stale = entries.filter(([b]) => b < oldestKept).map(([b]) => String(b))
      if (stale.length > 0) redis.hdel(prefix + key, ...stale).catch(skipped)
      return { total, retryAfterSeconds }
    },
  }
}
