import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { idempotencyConfig } from './idempotencyConfig.ts'

describe('idempotencyConfig', () => {
  it('keeps an Idempotency-Key 24 hours by default, else IDEMPOTENCY_KEY_TTL_HOURS', () => {
    assert.deepEqual(idempotencyConfig({}), { value: { keyTtlMs: 86_400_000 }, problems: [] })
    assert.deepEqual(idempotencyConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '2' }), {
      value: { keyTtlMs: 7_200_000 },
      problems: [],
    })
    assert.equal(idempotencyConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '720' }).value.keyTtlMs, 720 * 3_600_000)
  })

  it('names a value that is not a whole number of hours from 1 to 720', () => {
    for (const raw of ['0', '721', '1.5', '24h', '-1']) {
      assert.deepEqual(idempotencyConfig({ IDEMPOTENCY_KEY_TTL_HOURS: raw }).problems, [
        `IDEMPOTENCY_KEY_TTL_HOURS: "${raw}" is not an integer between 1 and 720`,
      ])
    }
  })
})
