import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { startTcpStall } from '../../bench/chaos/tcpStall.ts'
import { eventually } from '../../test/support/eventually.ts'
import { createLogger } from '../logging/createLogger.ts'
import { createWindowCounters } from './createWindowCounters.ts'

const logger = createLogger({ level: 'silent' })
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

describe('createWindowCounters', () => {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  // This run's own keys only: nothing another run or a live gateway counts is touched.
  const prefix = `test:window-counters:${randomBytes(6).toString('hex')}:`
  /** The same connection, with one of its methods replaced (to count what the counters send). */
  const watching = (method: 'multi' | 'hgetall' | 'hdel', replacement: (...args: never[]) => unknown) =>
    new Proxy(redis, {
      get: (target, name, receiver) => (name === method ? replacement : Reflect.get(target, name, receiver)),
    })
  after(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
  })

  for (const store of ['memory', 'redis'] as const) {
    it(`sums what was added within the window and forgets it as the window moves on (${store})`, async () => {
      let now = 1_000_000
      const counters = createWindowCounters({
        windowMs: 60_000,
        logger,
        now: () => now,
        ...(store === 'redis' ? { redis, prefix } : {}),
      })
      await counters.add('a', 1)
      now += 20_000
      await counters.add('a', 2.5)
      await counters.add('b', 7)
      assert.deepEqual(await counters.total('a'), { total: 3.5, retryAfterSeconds: 40, share: 1 })
      // 61 s after the first: it has left the window, the second has not.
      now += 41_000
      // Counted in 5 s buckets: the second addition leaves the window at the end of its bucket.
      assert.deepEqual(await counters.total('a'), { total: 2.5, retryAfterSeconds: 19, share: 1 })
      now += 25_000
      assert.deepEqual(await counters.total('a'), { total: 0, retryAfterSeconds: 0, share: 1 })
      assert.equal((await counters.total('unknown')).total, 0)
    })
  }

  it('writes what is added in one turn of the event loop as one MULTI, summed per key and bucket; the next turn in another', async () => {
    let now = 2_000_000
    const transactions: number[] = []
    // The same connection, its MULTIs counted (each with how many commands it queued).
    const counted = watching('multi', () => {
      const multi = redis.multi()
      const exec = multi.exec.bind(multi)
      multi.exec = () => {
        transactions.push(multi.length - 1) // its commands, MULTI itself left out
        return exec()
      }
      return multi
    })
    const counters = createWindowCounters({ windowMs: 60_000, logger, now: () => now, redis: counted, prefix })
    // A block's receipts: 100 executes settled at once, each counted for its sender, client and target.
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => [
        counters.add(`sender:${i % 2}`, 1),
        counters.add('client:bench', 0.5),
        counters.add('target:counter', 2),
      ]).flat(),
    )
    // One MULTI: four keys, each one HINCRBYFLOAT (one bucket) and one PEXPIRE.
    assert.deepEqual(transactions, [8])
    assert.equal((await counters.total('sender:0')).total, 50)
    assert.equal((await counters.total('client:bench')).total, 50)
    assert.equal((await counters.total('target:counter')).total, 200)
    // The next turn, and another bucket: its own MULTI.
    now += 10_000
    await counters.add('client:bench', 1)
    assert.deepEqual(transactions, [8, 2])
    assert.equal((await counters.total('client:bench')).total, 51)
  })

  it('reads a key once for every total asked of it in one turn of the event loop; a total asked after a write sees what it added', async () => {
    let now = 3_000_000
    const reads: string[] = []
    const counted = watching('hgetall', (key: string) => {
      reads.push(key.slice(prefix.length))
      return redis.hgetall(key)
    })
    const counters = createWindowCounters({ windowMs: 60_000, logger, now: () => now, redis: counted, prefix })
    await counters.add('client:reads', 2)
    // A turn's executes: each reads its sender's and its client's counts.
    const totals = await Promise.all(
      Array.from({ length: 50 }, (_, i) => [
        counters.total(`sender:reads:${i % 2}`),
        counters.total('client:reads'),
      ]).flat(),
    )
    assert.deepEqual(reads.sort(), ['client:reads', 'sender:reads:0', 'sender:reads:1'])
    assert.ok(totals.filter((_, i) => i % 2 === 1).every((t) => t.total === 2))
    // The next turn reads again; and a total asked in the turn of an add, once the add is written, sees it.
    now += 1_000
    assert.equal((await counters.total('client:reads')).total, 2)
    const added = counters.add('client:reads', 3)
    const before = counters.total('client:reads')
    await added
    assert.equal((await before).total, 2, 'asked before the write went: read before it')
    assert.equal((await counters.total('client:reads')).total, 5, 'asked after the write went: it sees the add')
    // In the same turn: one total asked before the write goes, one just after it (both before the turn ends).
    const write = counters.add('client:reads', 4)
    const justAfter = new Promise<number>((resolve) =>
      setImmediate(() => void counters.total('client:reads').then((t) => resolve(t.total))),
    )
    const justBefore = counters.total('client:reads')
    await write
    assert.equal((await justBefore).total, 5)
    assert.equal(await justAfter, 9, 'a write sent ends the sharing: the read after it is its own')
    assert.equal(reads.filter((k) => k === 'client:reads').length, 6)
  })

  it('deletes the buckets that left the window once per read, not once per total that shares it', async () => {
    let now = 4_000_000
    const deletes: string[][] = []
    const counted = watching('hdel', (key: string, ...fields: string[]) => {
      deletes.push(fields)
      return redis.hdel(key, ...fields)
    })
    const counters = createWindowCounters({ windowMs: 60_000, logger, now: () => now, redis: counted, prefix })
    await counters.add('client:stale', 1)
    now += 70_000
    await counters.add('client:stale', 2)
    const totals = await Promise.all(Array.from({ length: 10 }, () => counters.total('client:stale')))
    assert.ok(totals.every((t) => t.total === 2))
    // Asked as the read is answered, before any total is.
    assert.deepEqual(deletes, [[String(Math.floor(4_000_000 / 5_000))]])
  })

  it('shares counts between two gateways on one Redis; unreachable, counts in memory held to 1/N of each limit (was: counted nothing, every limit open)', async () => {
    const one = createWindowCounters({ windowMs: 60_000, logger, redis, prefix })
    const two = createWindowCounters({ windowMs: 60_000, logger, redis, prefix })
    await one.add('shared', 1)
    await two.add('shared', 1)
    const shared = await one.total('shared')
    assert.deepEqual([shared.total, shared.share], [2, 1])
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    })
    const unreachable = createWindowCounters({ windowMs: 60_000, logger, redis: down, prefix, liveInstances: () => 3 })
    await unreachable.add('shared', 5)
    await unreachable.add('shared', 2)
    const alone = await unreachable.total('shared')
    assert.deepEqual([alone.total, alone.share], [7, 1 / 3], "this instance's own count, its third of the limit")
    down.disconnect()
  })

  it("writes what it counted during an outage to Redis once it answers again, in the outage's own time buckets; the shared totals apply again", async () => {
    const link = await startTcpStall({ host: '127.0.0.1', port: Number(new URL(redisUrl).port || 6379) })
    const viaLink = new Redis(`redis://127.0.0.1:${link.port}`, {
      connectTimeout: 500,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      retryStrategy: () => 50,
    })
    viaLink.on('error', () => {})
    try {
      await eventually('the link is up', 5_000, async () => (viaLink.status === 'ready' ? true : undefined))
      let now = 2_000_000
      const cut = createWindowCounters({
        windowMs: 60_000,
        logger,
        redis: viaLink,
        prefix: `${prefix}outage:`,
        now: () => now,
        liveInstances: () => 2,
      })
      const other = createWindowCounters({
        windowMs: 60_000,
        logger,
        redis,
        prefix: `${prefix}outage:`,
        now: () => now,
      })
      await cut.add('k', 1)
      assert.deepEqual(await cut.total('k'), { total: 1, retryAfterSeconds: 60, share: 1 })
      link.cut()
      await eventually('the link is down', 5_000, async () => (viaLink.status !== 'ready' ? true : undefined))
      now += 10_000
      await cut.add('k', 4)
      assert.deepEqual(
        await cut.total('k'),
        { total: 4, retryAfterSeconds: 60, share: 0.5 },
        'alone: what it counted since, held to half of each limit',
      )
      assert.equal((await other.total('k')).total, 1, 'the others do not see it yet')
      link.heal()
      await eventually('the link is back', 10_000, async () => (viaLink.status === 'ready' ? true : undefined))
      assert.deepEqual(
        await cut.total('k'),
        { total: 5, retryAfterSeconds: 50, share: 1 },
        'shared again, with the outage counted',
      )
      assert.equal((await other.total('k')).total, 5, 'the others see the outage counts')
      now += 55_000
      assert.deepEqual(
        await other.total('k'),
        { total: 4, retryAfterSeconds: 5, share: 1 },
        'each part leaves the window when it would have',
      )
    } finally {
      viaLink.disconnect()
      await link.close()
    }
  })
})
