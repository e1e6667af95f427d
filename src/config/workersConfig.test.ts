import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { workerInstanceId, workersConfig } from './workersConfig.ts'

// Whether the chosen storage engine is shared (with DATABASE_URL: PostgreSQL) is the engine's to say.
const shared = { sharedJournal: true }
const unshared = { sharedJournal: false }

describe('WORKERS', () => {
  it('is 1 unless set, and takes 1 to 256', () => {
    assert.deepEqual(workersConfig({}, unshared), { value: 1, problems: [] })
    assert.deepEqual(workersConfig({ WORKERS: '4', REDIS_URL: 'redis://cache:6379' }, shared), {
      value: 4,
      problems: [],
    })
    assert.deepEqual(
      workersConfig({ WORKERS: '0' }, unshared).problems.map((p) => p.split(':')[0]),
      ['WORKERS'],
    )
    assert.deepEqual(
      workersConfig({ WORKERS: 'two' }, unshared).problems.map((p) => p.split(':')[0]),
      ['WORKERS'],
    )
  })
  it("more than one needs the shared PostgreSQL journal: the SQLite journal is one process's", () => {
    const { problems } = workersConfig({ WORKERS: '2', REDIS_URL: 'redis://cache:6379' }, unshared)
    assert.equal(problems.length, 1)
    assert.match(problems[0]!, /^WORKERS: .*DATABASE_URL/)
  })
  it('more than one needs REDIS_URL: rate limits, standing and budgets counted in each worker alone would allow N times the limit', () => {
    assert.deepEqual(workersConfig({ WORKERS: '2' }, shared).problems, [
      'WORKERS: more than 1 worker needs REDIS_URL (rate limits, standing and budgets shared by the workers); without it each worker counts in its own memory and allows the whole limit, N times in all',
    ])
    assert.deepEqual(workersConfig({}, shared).problems, [], 'one process: memory is shared')
  })
  it("names each worker after the configured instance, within INSTANCE_ID's 64 characters", () => {
    assert.equal(workerInstanceId('gw-1', 2), 'gw-1-w2')
    const long = workerInstanceId('x'.repeat(64), 12)
    assert.equal(long.length, 64)
    assert.ok(long.endsWith('-w12'))
  })
})
