import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { createLogger } from '../logging/createLogger.ts'
import { createWindowCounters } from './createWindowCounters.ts'

const logger = createLogger({ level: 'silent' })
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

describe('createWindowCounters', () => {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  // This run's own keys only: nothing another run or a live gateway counts is touched.
  const prefix = `test:window-counters:${randomBytes(6).toString('hex')}:`
  after(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
  })

  for (const store of ['memory', 'redis'] as const) {
    it(`sums what was added within the window and forgets it as the window moves on (${store})`, async () => {
      let now = 1_000_000
      const counters = createWindowCounters({ windowMs: 60_000, logger, now: () => now, ...(store === 'redis' ? { redis, prefix } : {}) })
      await counters.add('a', 1)
      now += 20_000
      await counters.add('a', 2.5)
      await counters.add('b', 7)
      assert.deepEqual(await counters.total('a'), { total: 3.5, retryAfterSeconds: 40 })
      // 61 s after the first: it has left the window, the second has not.
      now += 41_000
      // Counted in 5 s buckets: the second addition leaves the window at the end of its bucket.
      assert.deepEqual(await counters.total('a'), { total: 2.5, retryAfterSeconds: 19 })
      now += 25_000
      assert.deepEqual(await counters.total('a'), { total: 0, retryAfterSeconds: 0 })
      assert.equal((await counters.total('unknown')).total, 0)
    })
  }

  it('shares counts between two gateways on one Redis, and fails open when Redis is unreachable', async () => {
    const one = createWindowCounters({ windowMs: 60_000, logger, redis, prefix })
    const two = createWindowCounters({ windowMs: 60_000, logger, redis, prefix })
    await one.add('shared', 1)
    await two.add('shared', 1)
    assert.equal((await one.total('shared')).total, 2)
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null })
    const unreachable = createWindowCounters({ windowMs: 60_000, logger, redis: down, prefix })
    await unreachable.add('shared', 5)
    assert.deepEqual(await unreachable.total('shared'), { total: 0, retryAfterSeconds: 0 })
    down.disconnect()
  })
})
