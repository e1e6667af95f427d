import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Hex } from 'viem'
import { matchesRuntimeCode } from './matchesRuntimeCode.ts'

describe('matchesRuntimeCode', () => {
  // 8 bytes of code with an immutable of 2 bytes at byte 3, as the compiler leaves it: zeros.
  const artifact = { deployedBytecode: '0x6001600000005b00' as Hex, immutableReferences: [{ start: 3, length: 2 }] }

  it('accepts the build with any value in its immutables, in either case', () => {
    assert.equal(matchesRuntimeCode('0x6001600000005b00', artifact), true)
    assert.equal(matchesRuntimeCode('0x600160ABCD005B00', artifact), true)
  })

  it('refuses a byte changed outside the immutables, a longer or shorter code, and no code', () => {
    assert.equal(matchesRuntimeCode('0x600160abcd015b00', artifact), false)
    assert.equal(matchesRuntimeCode('0x7001600000005b00', artifact), false)
    assert.equal(matchesRuntimeCode('0x6001600000005b0000', artifact), false)
    assert.equal(matchesRuntimeCode('0x6001600000005b', artifact), false)
    assert.equal(matchesRuntimeCode(undefined, artifact), false)
  })
})
