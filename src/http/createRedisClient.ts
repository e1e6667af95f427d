// The Redis connection that holds the shared rate limits. Settings follow @fastify/rate-limit's
// advice: a short connect timeout and one retry per command, and no offline queue, so that a
// Redis outage fails a count at once (the limit is then skipped, see rateLimit.ts) instead of
// holding requests. The client is handed back once connected (or once the first attempt failed,
// at most the connect timeout): without an offline queue, a count asked before the connection
// is ready fails too, so a gateway that served at once would let its first requests through
// unlimited.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { redactUrl } from '../config/redactUrl.ts'

export async function createRedisClient(url: string, logger: Logger): Promise<Redis> {
  const { Redis } = await import('ioredis')
  const log = logger.child({ module: 'redis', url: redactUrl(url) })
  const client = new Redis(url, {
    connectTimeout: 1_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  })
  let down = false
  client.on('error', (err: Error) => {
    if (!down)
      log.warn({ err: { message: err.message } }, 'Redis unreachable: rate limits are not enforced until it is back')
    down = true
  })
  client.on('ready', () => {
    if (down) log.info('Redis reachable again: rate limits enforced')
    down = false
  })
  await new Promise<void>((resolve) => {
    const settled = () => {
      clearTimeout(timer)
      client.off('ready', settled)
      client.off('error', settled)
      resolve()
    }
    const timer = setTimeout(settled, 1_000)
    client.once('ready', settled)
    client.once('error', settled)
  })
  return client
}
