// Sliding-window counters for standing and budgets: each key's window is cut into buckets, and a
// total is the sum of the buckets still inside it. In this process's memory, or in Redis (shared
// by every instance, the same store as the rate limits). Amounts are doubles: a budget is a
// circuit breaker, exact to 15 significant digits, not an account.
//
// Redis unreachable: the counts go on in this process's memory (never skipped: skipping would leave
// every budget and standing limit unbounded for as long as the outage lasts), and each total says
// that it is this instance's alone, with `share` = 1/N of the N live instances this instance knows
// (the relayer leases' count): the caller holds it to that part of each limit, so the fleet together
// stays within the limit. When Redis answers again, what was counted meanwhile is written to it in
// its own time buckets (so it leaves the window when it would have), and the shared totals apply again.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'

export type WindowTotal = {
  total: number
  /** Seconds until the oldest part of the total leaves the window. */
  retryAfterSeconds: number
  /** The part of a limit this total is held to: 1 when the count is shared (or the instance alone), 1/N while it is this instance's own count among N live instances (Redis unreachable). */
  share: number
}

export type WindowCounters = {
  add(key: string, amount: number): Promise<void>
  /** The key's total over the window, the seconds until the oldest part of it leaves the window, and the share of a limit it is held to. */
  total(key: string): Promise<WindowTotal>
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
  /** How many live instances share the limits (this one included), as this instance last knew it; default 1. Read only while Redis is unreachable. */
  liveInstances?: () => number
}

const buckets = 12

export function createWindowCounters({
  windowMs,
  redis,
  prefix = 'intent-gateway:limits:',
  logger,
  now = Date.now,
  liveInstances = () => 1,
}: CreateWindowCountersParameters): WindowCounters {
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
    const retryAfterSeconds =
      oldest === undefined ? 0 : Math.max(1, Math.ceil(((oldest + buckets) * bucketMs - t) / 1000))
    return { total, retryAfterSeconds, oldestKept }
  }

  /** This process's own counts: the whole store without Redis, the outage's counts with it. */
  const memory = new Map<string, Map<number, number>>()
  const addLocal = (key: string, amount: number, t: number) => {
    let entry = memory.get(key)
    if (!entry) memory.set(key, (entry = new Map()))
    const bucket = bucketOf(t)
    entry.set(bucket, (entry.get(bucket) ?? 0) + amount)
    for (const b of entry.keys()) if (b <= bucket - buckets) entry.delete(b)
  }
  const totalLocal = (key: string, t: number) => {
    const entry = memory.get(key)
    if (!entry) return { total: 0, retryAfterSeconds: 0 }
    const { total, retryAfterSeconds } = sum(entry, t)
    if (total === 0) memory.delete(key)
    return { total, retryAfterSeconds }
  }

  if (!redis) {
    return {
      async add(key, amount) {
        addLocal(key, amount, now())
      },
      async total(key) {
        return { ...totalLocal(key, now()), share: 1 }
      },
    }
  }

  const log = logger.child({ module: 'limits' })
  let down = false
  const wentDown = (err: unknown) => {
    if (down) return
    down = true
    log.warn(
      { err: { message: (err as Error).message }, liveInstances: liveInstances() },
      "Redis unreachable: standing and budgets are counted in this instance's memory, each limit divided by the live instances",
    )
  }
  /** One MULTI adding each key's amounts to their buckets and renewing the key's expiry. */
  const counted = (entries: Iterable<readonly [string, Iterable<readonly [number, number]>]>) => {
    const multi = redis.multi()
    for (const [key, entry] of entries) {
      for (const [bucket, amount] of entry) multi.hincrbyfloat(prefix + key, String(bucket), amount)
      multi.pexpire(prefix + key, windowMs + bucketMs)
    }
    return multi
  }
  /** Redis answered: what was counted during the outage goes to it, in its own buckets; then the shared totals apply. */
  let flushing: Promise<void> | undefined
  const cameBack = () => {
    if (!down || flushing) return flushing
    flushing = (async () => {
      const t = now()
      const oldestKept = bucketOf(t) - buckets + 1
      // A copy: the local counts keep answering while the write is under way, and what is counted
      // meanwhile stays for the next one; once written, exactly what was written is taken out.
      const pending = [...memory.entries()].map(
        ([key, entry]) => [key, [...entry].filter(([bucket, amount]) => bucket >= oldestKept && amount !== 0)] as const,
      )
      await counted(pending).exec()
      for (const [key, entry] of pending) {
        const kept = memory.get(key)
        if (!kept) continue
        for (const [bucket, amount] of entry) {
          const left = (kept.get(bucket) ?? 0) - amount
          if (left === 0) kept.delete(bucket)
          else kept.set(bucket, left)
        }
        if (kept.size === 0) memory.delete(key)
      }
      down = false
      log.info(
        { keys: pending.length },
        "Redis reachable again: this instance's counts of the outage were added to the shared ones",
      )
    })()
      .catch(wentDown)
      .finally(() => {
        flushing = undefined
      })
    return flushing
  }
  // Written back as soon as the connection is ready again, not at the next execute.
  redis.on('ready', () => void cameBack())

  /**
   * What is added in one turn of the event loop goes to Redis as one MULTI, summed per key and
   * bucket: a block's receipts settle many executes at once, each counted for its sender, client and
   * target, and four commands for each count were most of the gateway's Redis work (14 commands an
   * execute in the bench, with the two reads). Not written (Redis unreachable): counted here, each
   * amount in its own bucket, as an add alone was.
   */
  let pending: { amounts: Map<string, Map<number, number>>; written: Promise<void> } | undefined
  const write = async (amounts: Map<string, Map<number, number>>) => {
    reads = undefined
    try {
      await counted(amounts).exec()
    } catch (err) {
      wentDown(err)
      for (const [key, entry] of amounts) for (const [bucket, amount] of entry) addLocal(key, amount, bucket * bucketMs)
    }
  }
  /**
   * Reads of one key asked in one turn of the event loop share one HGETALL: an execute reads its
   * sender's and its client's counts before it runs, and the executes of one turn are mostly one
   * client's. A write sent ends the sharing, so a read asked after it sees what it added. The
   * buckets a read finds out of the window are deleted once per read, not once per caller.
   */
  let reads: Map<string, Promise<Record<string, string>>> | undefined
  const read = (key: string) => {
    if (!reads) {
      const turn = new Map<string, Promise<Record<string, string>>>()
      reads = turn
      setImmediate(() => {
        if (reads === turn) reads = undefined
      })
    }
    let fields = reads.get(key)
    if (!fields) {
      fields = redis.hgetall(prefix + key).then((got) => {
        const oldestKept = bucketOf(now()) - buckets + 1
        const stale = Object.keys(got).filter((b) => Number(b) < oldestKept)
        if (stale.length > 0) redis.hdel(prefix + key, ...stale).catch(wentDown)
        return got
      })
      reads.set(key, fields)
    }
    return fields
  }
  return {
    async add(key, amount) {
      const t = now()
      if (down) {
        // Counted here until the outage's counts are in Redis (a flush under way has taken what was there).
        addLocal(key, amount, t)
        void cameBack()
        return
      }
      if (!pending) {
        const amounts = new Map<string, Map<number, number>>()
        const written = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
          pending = undefined
          return write(amounts)
        })
        pending = { amounts, written }
      }
      let entry = pending.amounts.get(key)
      if (!entry) pending.amounts.set(key, (entry = new Map()))
      const bucket = bucketOf(t)
      entry.set(bucket, (entry.get(bucket) ?? 0) + amount)
      return pending.written
    },
    async total(key) {
      let fields: Record<string, string>
      try {
        fields = await read(key)
      } catch (err) {
        wentDown(err)
        return { ...totalLocal(key, now()), share: 1 / Math.max(1, liveInstances()) }
      }
      if (down) {
        await cameBack()
        if (down) return { ...totalLocal(key, now()), share: 1 / Math.max(1, liveInstances()) }
        fields = await redis.hgetall(prefix + key).catch(() => fields)
      }
      const t = now()
      const entries = Object.entries(fields).map(([b, v]): [number, number] => [Number(b), Number(v)])
      const { total, retryAfterSeconds } = sum(entries, t)
      return { total, retryAfterSeconds, share: 1 }
    },
  }
}
