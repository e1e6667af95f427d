// The composition root's first step: where the gateway keeps its state. The storage engine the
// configuration chooses (storageEngines.ts) opens the journal, and the relayer leases when it is
// shared; Redis, when configured, counts the rate limits, standing and budgets every instance shares.

import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import type { Store } from './config/storageEngine.ts'
import { createRedisClient } from './http/createRedisClient.ts'
import type { Journal } from './ports/journal.ts'
import { openStore } from './storageEngines.ts'
import type { Tracing } from './tracing/createTracing.ts'

export type Stores = {
  /** With tracing, its writes made for a request are spans of its trace. */
  journal: Journal
  leases: Store['leases']
  /** Shared counters (the client loaded only when REDIS_URL is set). */
  redis: Redis | undefined
  /** Closes the leases, the journal and Redis, in that order (the leases are released before, by whoever holds them). */
  close(): Promise<void>
}

export async function openStores({
  config,
  logger,
  tracing,
}: {
  config: GatewayConfig
  logger: Logger
  tracing: Tracing | undefined
}): Promise<Stores> {
  const { journal: opened, leases } = await openStore(config)
  const journal = tracing ? tracing.traceJournal(opened) : opened
  logger.info({ journal: journal.path, pendingExecutions: await journal.pendingCount() }, 'execution journal open')
  const redis = config.storage.redisUrl
    ? await createRedisClient(config.storage.redisUrl, logger).catch(async (err) => {
        await leases?.close()
        await journal.close()
        throw err
      })
    : undefined
  return {
    journal,
    leases,
    redis,
    async close() {
      await leases?.close()
      await journal.close()
      await redis?.quit().catch(() => redis.disconnect())
    },
  }
}
