import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { workerInstanceId, workersConfig } from './workersConfig.ts'

describe('WORKERS', () => {
  it('is 1 unless set, and takes 1 to 256', () => {
    assert.deepEqual(workersConfig({}), { value: 1, problems: [] })
    assert.deepEqual(workersConfig({ WORKERS: '4', DATABASE_URL: 'postgres://db/g' }), { value: 4, problems: [] })
    assert.deepEqual(
      workersConfig({ WORKERS: '0' }).problems.map((p) => p.split(':')[0]),
      ['WORKERS'],
    )
    assert.deepEqual(
      workersConfig({ WORKERS: 'two' }).problems.map((p) => p.split(':')[0]),
      ['WORKERS'],
    )
  })
  it("more than one needs the shared PostgreSQL journal: the SQLite journal is one process's", () => {
    const { problems } = workersConfig({ WORKERS: '2' })
    assert.equal(problems.length, 1)
    assert.match(problems[0]!, /^WORKERS: .*DATABASE_URL/)
  })
  it("names each worker after the configured instance, within INSTANCE_ID's 64 characters", () => {
    assert.equal(workerInstanceId('gw-1', 2), 'gw-1-w2')
    const long = workerInstanceId('x'.repeat(64), 12)
    assert.equal(long.length, 64)
    assert.ok(long.endsWith('-w12'))
  })
})
