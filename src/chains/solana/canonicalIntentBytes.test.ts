import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Address } from '@solana/kit'
import { canonicalIntentBytes, intentDomain } from './canonicalIntentBytes.ts'

// Keys whose bytes are easy to see: base58 of 32 bytes 0x01..0x20 and so on.
const programId = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' as Address // 0x01 * 32
const config = '8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR' as Address // 0x02 * 32
const sender = 'CktRuQ2mttgRGkXJtyksdKHjUdc2C4TgDzyB98oEzy8' as Address // 0x03 * 32
const target = 'GgBaCs3NCBuZN12kCJgAW63ydqohFkHEdfdEXBPzLHq' as Address // 0x04 * 32

describe('canonicalIntentBytes', () => {
  const intent = {
    sender,
    target,
    data: '0xdeadbeef' as const,
    value: 0x0102030405060708n,
    nonce: 2n ** 64n - 1n,
    validAfter: 1n,
    validBefore: 0x7fffffffffffffffn,
    policyId: `0x${'ee'.repeat(32)}` as const,
  }

  it('lays the fields out little-endian at fixed offsets, then the account metas and the data', () => {
    const bytes = canonicalIntentBytes(intent, { programId, config }, [
      { address: target, signer: false, writable: true },
    ])
    const hex = Buffer.from(bytes).toString('hex')
    const at = (offset: number, length: number) => hex.slice(offset * 2, (offset + length) * 2)
    assert.equal(Buffer.from(bytes.subarray(0, 24)).toString('ascii'), intentDomain)
    assert.equal(at(24, 32), '01'.repeat(32))
    assert.equal(at(56, 32), '02'.repeat(32))
    assert.equal(at(88, 32), '03'.repeat(32))
    assert.equal(at(120, 32), '04'.repeat(32))
    assert.equal(at(152, 8), '0807060504030201')
    assert.equal(at(160, 8), 'ffffffffffffffff')
    assert.equal(at(168, 8), '0100000000000000')
    assert.equal(at(176, 8), 'ffffffffffffff7f')
    assert.equal(at(184, 32), 'ee'.repeat(32))
    assert.equal(at(216, 4), '01000000')
    assert.equal(at(220, 34), `${'04'.repeat(32)}0001`)
    assert.equal(at(254, 4), '04000000')
    assert.equal(at(258, 4), 'deadbeef')
    assert.equal(bytes.length, 262)
  })

  it('has an empty account list and empty data when there are none', () => {
    const bytes = canonicalIntentBytes({ ...intent, data: '0x' }, { programId, config })
    assert.equal(bytes.length, 224)
    assert.equal(Buffer.from(bytes.subarray(216)).toString('hex'), '0000000000000000')
  })
})
