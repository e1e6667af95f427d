import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { storageConfig } from './storageConfig.ts'

describe('storageConfig', () => {
  it('defaults to in-memory limits and a host-and-pid instance name', () => {
    const { value, problems } = storageConfig({})
    assert.deepEqual(problems, [])
    assert.equal(value.redisUrl, undefined)
    assert.match(value.instanceId, new RegExp(`-${process.pid}$`))
  })

  it('takes a Redis URL and an instance id', () => {
    const { value, problems } = storageConfig({
      REDIS_URL: 'rediss://cache:6380',
      INSTANCE_ID: 'gw-1',
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(value, {
      redisUrl: 'rediss://cache:6380',
      redisPrefix: 'intent-gateway:',
      retentionDays: 30,
      instanceId: 'gw-1',
      relayerLeaseTtlMs: 15_000,
    })
    assert.equal(storageConfig({ RETENTION_DAYS: '0' }).value.retentionDays, 0)
    assert.deepEqual(storageConfig({ RETENTION_DAYS: '7.5' }).problems, [
      'RETENTION_DAYS: a whole number of days from 0 (keep forever) to 36500',
    ])
    assert.equal(storageConfig({ REDIS_PREFIX: 'staging:gw:' }).value.redisPrefix, 'staging:gw:')
    assert.deepEqual(storageConfig({ REDIS_PREFIX: 'a b' }).problems, [
      'REDIS_PREFIX: 1 to 64 letters, digits, ".", "_", ":" or "-"',
    ])
  })

  it('names every variable at fault, at once, without echoing a password', () => {
    const { problems } = storageConfig({
      REDIS_URL: 'http://cache',
      INSTANCE_ID: 'a b',
    })
    assert.deepEqual(
      problems.map((p) => p.split(':')[0]),
      ['REDIS_URL', 'INSTANCE_ID'],
    )
  })
})
