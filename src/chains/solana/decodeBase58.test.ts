import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { getBase58Encoder } from '@solana/kit'
import { decodeBase58 } from './decodeBase58.ts'

describe('decodeBase58', () => {
  it('agrees with @solana/kit on keys, leading zeros and the empty string', () => {
    for (const text of [
      '',
      '1',
      '111',
      '11111111111111111111111111111111',
      'SysvarC1ock11111111111111111111111111111111',
      '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi',
      'z',
      '2NEpo7TZRRrLZSi2U',
    ]) {
      assert.deepEqual([...decodeBase58(text)!], [...getBase58Encoder().encode(text)], text)
    }
  })
  it('refuses characters outside the alphabet', () => {
    for (const text of ['0', 'O', 'I', 'l', 'abc+', ' 1']) assert.equal(decodeBase58(text), undefined, text)
  })
})
