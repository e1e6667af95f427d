import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type Address, getBase58Decoder } from '@solana/kit'
import { keccak256 } from '../../crypto/keccak256.ts'
import type { Intent } from '../../ports/intent.ts'
import { canonicalIntentBytes } from './canonicalIntentBytes.ts'
import { createSolanaRuntime, solanaRuntime } from './solanaRuntime.ts'

const key = (byte: number) => getBase58Decoder().decode(new Uint8Array(32).fill(byte))
const intent = (overrides: Partial<Intent> = {}): Intent => ({
  sender: key(3),
  target: key(4),
  data: '0x01',
  value: 1n,
  nonce: 2n,
  validAfter: 0n,
  validBefore: 0n,
  policyId: `0x${'11'.repeat(32)}`,
  ...overrides,
})

describe('solanaRuntime', () => {
  it('accepts base58 keys of 32 bytes, including the system program and leading zero bytes', () => {
    for (const k of [
      key(0),
      key(255),
      '11111111111111111111111111111111',
      'SysvarC1ock11111111111111111111111111111111',
    ])
      assert.equal(solanaRuntime.checkAddress(k), undefined, k)
  })

  it('names what is wrong with a key', () => {
    assert.match(solanaRuntime.checkAddress(`0x${'ab'.repeat(20)}`)!, /base58/)
    assert.match(solanaRuntime.checkAddress(`Il0O${key(5).slice(4)}`)!, /base58/)
    assert.match(solanaRuntime.checkAddress('')!, /base58/)
    assert.equal(
      solanaRuntime.checkAddress(getBase58Decoder().decode(new Uint8Array(31).fill(9))),
      'must be a base58 public key of 32 bytes (it decodes to 31)',
    )
    assert.equal(
      solanaRuntime.checkAddress(getBase58Decoder().decode(new Uint8Array(33))),
      'must be a base58 public key of 32 bytes (it decodes to 33)',
    )
    assert.match(solanaRuntime.checkAddress('2'.repeat(100))!, /too long/)
  })

  it('keeps value and nonce within u64 and the time bounds within i64, naming each field', () => {
    assert.deepEqual(
      solanaRuntime.checkIntent(
        intent({
          value: 2n ** 64n - 1n,
          nonce: 2n ** 64n - 1n,
          validAfter: 2n ** 63n - 1n,
          validBefore: 2n ** 63n - 1n,
        }),
      ),
      [],
    )
    const errors = solanaRuntime.checkIntent(
      intent({ value: 2n ** 64n, nonce: 2n ** 255n, validAfter: 2n ** 63n, validBefore: 2n ** 64n }),
    )
    assert.deepEqual(
      errors.map((e) => e.field),
      ['value', 'nonce', 'validAfter', 'validBefore'],
    )
    assert.match(errors[0]!.message, /u64/)
    assert.match(errors[2]!.message, /i64/)
  })

  it('hashes the canonical bytes of its own deployment', () => {
    const deployment = { programId: key(1) as Address, config: key(2) as Address }
    const runtime = createSolanaRuntime(deployment)
    assert.equal(runtime.hashIntent(intent()), keccak256(canonicalIntentBytes(intent(), deployment)))
    assert.notEqual(
      runtime.hashIntent(intent()),
      createSolanaRuntime({ ...deployment, config: key(9) as Address }).hashIntent(intent()),
    )
    assert.notEqual(runtime.hashIntent(intent()), runtime.hashIntent(intent({ data: '0x02' })))
  })
})
