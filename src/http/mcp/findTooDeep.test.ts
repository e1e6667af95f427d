import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { findTooDeep } from './findTooDeep.ts'

/** `depth` objects and arrays, alternating, around a number, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value]
  return value
}

describe('findTooDeep', () => {
  it('accepts values up to the depth, names the first deeper one', () => {
    assert.equal(findTooDeep({ intent: nested(32), chainId: '31337', n: null }), undefined)
    assert.deepEqual(findTooDeep({ intent: { fine: true }, chainId: nested(33), other: nested(40) }), {
      field: 'chainId',
      message: 'is nested more than 32 levels deep',
    })
    assert.deepEqual(findTooDeep({ '_meta.trace': nested(3) }, 2), {
      field: '_meta.trace',
      message: 'is nested more than 2 levels deep',
    })
  })

  it('walks values far deeper than the stack allows without overflowing', () => {
    assert.deepEqual(findTooDeep({ intent: nested(100_000) }), {
      field: 'intent',
      message: 'is nested more than 32 levels deep',
    })
  })
})
