import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { toHex, keccak256 as viemKeccak256 } from 'viem'
import { keccak256 } from './keccak256.ts'

describe('keccak256', () => {
  it('agrees with viem on hex and bytes of many sizes, including none', () => {
    for (const size of [0, 1, 31, 32, 135, 136, 137, 1024, 16 * 1024 + 7]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + size) & 0xff)
      assert.equal(keccak256(toHex(bytes)), viemKeccak256(bytes), `size ${size}`)
      assert.equal(keccak256(bytes), viemKeccak256(bytes), `size ${size} as bytes`)
    }
    assert.equal(keccak256('0x'), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
  })
})
