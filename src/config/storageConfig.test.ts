import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { storageConfig } from './storageConfig.ts'

describe('storageConfig', () => {
  it('defaults to the embedded journal, in-memory limits and a host-and-pid instance name', () => {
    const { value, problems } = storageConfig({})
    assert.deepEqual(problems, [])
    assert.equal(value.databaseUrl, undefined)
    assert.equal(value.redisUrl, undefined)
    assert.match(value.instanceId, new RegExp(`-${process.pid}$`))
  })

  it('takes PostgreSQL and Redis URLs and an instance id', () => {
    const { value, problems } = storageConfig({
      DATABASE_URL: 'postgres://gw:pw@db:5432/gateway',
      REDIS_URL: 'rediss://cache:6380',
      INSTANCE_ID: 'gw-1',
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(value, {
      databaseUrl: 'postgres://gw:pw@db:5432/gateway',
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
      DATABASE_URL: 'mysql://u:secret@h/d',
      REDIS_URL: 'http://cache',
      INSTANCE_ID: 'a b',
      JOURNAL_PATH: 'x.sqlite',
    })
    assert.deepEqual(
      problems.map((p) => p.split(':')[0]),
      ['DATABASE_URL', 'JOURNAL_PATH', 'REDIS_URL', 'INSTANCE_ID'],
    )
    assert.ok(problems.every((p) => !p.includes('secret')))
  })
})
