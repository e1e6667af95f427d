import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { getStatusCode, isSuccessStatus, statusCodes, toStatusHex } from './statusCodes.ts'

// Written out by hand from docs/api-contract.md §4, one row per category (high nibble), one column per
// reason (low nibble 0..F), so that the table is checked against the contract, not against itself.
const expected: Record<number, number[]> = {
  //     _0   _1   _2   _3   _4   _5   _6   _7   _8   _9   _A   _B   _C   _D   _E   _F
  0x0: [400, 200, 202, 202, 422, 428, 422, 502, 409, 502, 502, 502, 502, 502, 502, 200],
  0x1: [403, 200, 202, 202, 403, 403, 403, 502, 409, 502, 502, 502, 502, 502, 502, 200],
  0x2: [202, 410, 409, 202, 422, 428, 422, 502, 409, 502, 502, 502, 502, 502, 502, 200],
  0x3: [400, 200, 202, 202, 422, 428, 422, 502, 409, 502, 502, 502, 502, 502, 502, 200],
  0x4: [503, 200, 503, 202, 202, 428, 410, 502, 409, 502, 502, 502, 502, 502, 502, 200],
  0x5: [422, 200, 402, 202, 402, 402, 422, 502, 409, 502, 502, 502, 502, 502, 502, 200],
  0x6: Array(16).fill(502),
  0x7: Array(16).fill(502),
  0x8: Array(16).fill(502),
  0x9: Array(16).fill(502),
  0xa: [400, 501, 421, 202, 422, 428, 422, 502, 422, 502, 502, 502, 502, 502, 502, 200],
  0xb: Array(16).fill(502),
  0xc: Array(16).fill(502),
  0xd: Array(16).fill(502),
  0xe: [400, 200, 202, 202, 401, 401, 422, 502, 409, 502, 502, 502, 502, 502, 502, 200],
  0xf: [502, 200, 202, 202, 503, 428, 429, 502, 409, 502, 502, 502, 502, 502, 502, 200],
}

describe('ERC-1066 to HTTP mapping', () => {
  for (let category = 0; category < 16; category++) {
    it(`maps category 0x${category.toString(16).toUpperCase()}_ as docs/api-contract.md §4 says`, () => {
      const row = statusCodes.slice(category * 16, category * 16 + 16).map((s) => s.httpStatus)
      assert.deepEqual(row, expected[category])
    })
  }

  it('covers every byte exactly once, in order', () => {
    assert.equal(statusCodes.length, 256)
    statusCodes.forEach((s, i) => assert.equal(s.code, i))
  })

  it('keeps the seed names and writes codes as 0x + two upper-case digits', () => {
    assert.equal(getStatusCode(0x01).statusName, 'SUCCESS')
    assert.equal(getStatusCode(0x20).statusName, 'TOO_EARLY')
    assert.equal(getStatusCode(0x21).statusName, 'TOO_LATE')
    assert.equal(getStatusCode(0x22).statusName, 'NONCE_USED')
    assert.equal(getStatusCode(0x10).statusName, 'DISALLOWED')
    assert.equal(getStatusCode(0x54).statusName, 'INSUFFICIENT_FUNDS')
    assert.equal(getStatusCode(0xa0).statusName, 'INVALID_FORMAT')
    assert.equal(getStatusCode(0xa1).statusName, 'UNSUPPORTED_ACTION')
    assert.equal(getStatusCode(0xa2).statusName, 'UNSUPPORTED_CHAIN')
    assert.equal(getStatusCode(0x46).statusName, 'EXPIRED')
    assert.equal(getStatusCode(0x77).statusName, 'RESERVED')
    assert.equal(getStatusCode(0xa8).statusName, 'IDEMPOTENCY_KEY_REUSED')
    assert.equal(toStatusHex(0xa2), '0xA2')
    assert.equal(toStatusHex(0x01), '0x01')
  })

  it('lets execution go ahead only on 0x01, 0x11 and 0x51', () => {
    const allowed = statusCodes.filter((s) => isSuccessStatus(s.code)).map((s) => s.hex)
    assert.deepEqual(allowed, ['0x01', '0x11', '0x51'])
  })

  it('refuses a value that is not a byte', () => {
    assert.throws(() => getStatusCode(256), /not an ERC-1066 code: 256/)
  })
})
