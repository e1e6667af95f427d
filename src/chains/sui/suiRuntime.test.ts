// Sui's address form, u64 ranges and value-only rule, as field errors.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { InputError } from '../../errors/inputError.ts'
import { parseIntent } from '../../intents/parseIntent.ts'
import type { Intent } from '../../ports/intent.ts'
import { suiRuntime } from './suiRuntime.ts'

const body = {
  sender: `0x${'aB'.repeat(32)}`,
  target: `0x${'22'.repeat(32)}`,
  data: '0x',
  value: '1',
  nonce: '0',
  policyId: `0x${'ab'.repeat(32)}`,
}

function errorsOf(overrides: Record<string, string>) {
  try {
    parseIntent({ ...body, ...overrides }, suiRuntime)
    return []
  } catch (err) {
    assert.ok(err instanceof InputError)
    return err.errors
  }
}

describe('suiRuntime', () => {
  it('accepts 0x + 64 hex digits in any case', () => {
    assert.equal(suiRuntime.checkAddress(`0x${'aB'.repeat(32)}`), undefined)
  })

  it('refuses short forms, EVM addresses and non-hex, saying that short forms are not accepted', () => {
    for (const bad of [
      '0x2',
      `0x${'11'.repeat(20)}`,
      `0x${'zz'.repeat(32)}`,
      `${'11'.repeat(32)}`,
      `0x${'11'.repeat(33)}`,
    ]) {
      assert.equal(
        suiRuntime.checkAddress(bad),
        'must be a Sui address: 0x followed by 64 hex digits (short forms such as 0x2 are not accepted: write all 64 digits)',
        bad,
      )
    }
    assert.deepEqual(
      errorsOf({ sender: '0x2' }).map((e) => e.field),
      ['sender'],
    )
  })

  it('answers data other than 0x with an error naming data', () => {
    assert.deepEqual(errorsOf({ data: '0x12345678' }), [
      {
        field: 'data',
        message: 'must be "0x" on Sui: a Sui intent moves value only, the Move module cannot call a target with data',
      },
    ])
  })

  it('keeps value, nonce and the time bounds within u64', () => {
    const max = (2n ** 64n - 1n).toString()
    assert.deepEqual(errorsOf({ value: max, nonce: max, validAfter: max, validBefore: max }), [])
    const over = (2n ** 64n).toString()
    assert.deepEqual(errorsOf({ value: over, nonce: over, validAfter: over, validBefore: over }), [
      { field: 'value', message: 'must be below 2^64 on Sui (a Move u64)' },
      { field: 'nonce', message: 'must be below 2^64 on Sui (a Move u64)' },
      { field: 'validAfter', message: 'must be below 2^64 on Sui (a Move u64)' },
      { field: 'validBefore', message: 'must be below 2^64 on Sui (a Move u64)' },
    ])
  })

  it('hashes the same intent the same whatever the case of its addresses', () => {
    const lower: Intent = parseIntent({ ...body, sender: body.sender.toLowerCase() }, suiRuntime)
    const mixed: Intent = parseIntent(body, suiRuntime)
    assert.equal(suiRuntime.hashIntent(lower), suiRuntime.hashIntent(mixed))
    assert.match(suiRuntime.hashIntent(lower), /^0x[0-9a-f]{64}$/)
  })
})
