import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { test } from 'node:test'
import { createLogger } from '../logging/createLogger.ts'
import { createRedisClient } from './createRedisClient.ts'

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const logger = createLogger({ level: 'silent' })

test('the rate limits’ Redis client is handed back connected: the first count is made, not skipped', async () => {
  const client = await createRedisClient(redisUrl, logger)
  try {
    assert.equal(client.status, 'ready')
    assert.equal(await client.ping(), 'PONG')
  } finally {
    client.disconnect()
  }
})

test('a Redis that does not answer holds the start at most the connect timeout (1 s): the limits are then skipped, as in an outage', async () => {
  // Accepts the TCP connection and never answers: the client waits for its connect timeout.
  const silent = createServer(() => {})
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  const { port } = silent.address() as { port: number }
  const started = performance.now()
  const client = await createRedisClient(`redis://127.0.0.1:${port}`, logger)
  try {
    const waited = performance.now() - started
    assert.ok(waited < 1_500, `waited ${waited.toFixed(0)} ms`)
    assert.notEqual(client.status, 'ready')
  } finally {
    client.disconnect()
    silent.close()
  }
})
