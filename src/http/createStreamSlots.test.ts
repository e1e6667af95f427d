import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createStreamSlots } from './createStreamSlots.ts'

describe('createStreamSlots', () => {
  it('refuses past each bound, and a release (counted once) frees the slot', () => {
    const slots = createStreamSlots({ perClient: 2, perIntent: 3, total: 4 })
    const a1 = slots.acquire('a', 'x')
    assert.ok('release' in a1)
    assert.ok('release' in slots.acquire('a', 'y'))
    assert.deepEqual(slots.acquire('a', 'z'), { refused: 'client' })
    assert.ok('release' in slots.acquire('b', 'x'))
    assert.ok('release' in slots.acquire('c', 'x'))
    assert.deepEqual(slots.acquire('d', 'w'), { refused: 'total' })
    a1.release()
    a1.release()
    assert.equal(slots.open(), 3)
    assert.deepEqual(slots.acquire('d', 'w').constructor, Object)
    assert.deepEqual(slots.acquire('e', 'x'), { refused: 'total' })
  })

  it('refuses a fourth stream of one intent from a fourth client', () => {
    const slots = createStreamSlots({ perClient: 2, perIntent: 3, total: 10 })
    for (const c of ['a', 'b', 'c']) assert.ok('release' in slots.acquire(c, 'x'))
    assert.deepEqual(slots.acquire('d', 'x'), { refused: 'intent' })
  })
})
