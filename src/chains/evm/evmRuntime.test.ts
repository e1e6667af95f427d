import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { encodeAbiParameters, getAddress, keccak256 } from 'viem'
import { evmIntents } from '../../../test/support/evmIntentArbitrary.ts'
import type { Intent } from '../../ports/intent.ts'
import { encodeIntent, evmRuntime, toIntentTuple } from './evmRuntime.ts'
import { intentAbiParameter } from './intentAbi.ts'

const intents = evmIntents()

describe('encodeIntent', () => {
  it('is abi.encode(intent) exactly as viem encodes it, for any intent', () => {
    fc.assert(
      fc.property(intents, (intent) => {
        assert.equal(encodeIntent({ ...intent }), encodeAbiParameters([intentAbiParameter], [toIntentTuple(intent)]))
      }),
      { numRuns: 500 },
    )
  })

  it('pads call data to whole words at each boundary, and hashes what it encodes', () => {
    for (const length of [0, 1, 31, 32, 33, 64, 65]) {
      const intent: Intent = {
        sender: getAddress(`0x${'ab'.repeat(20)}`),
        target: `0x${'cd'.repeat(20)}`,
        data: `0x${'ef'.repeat(length)}`,
        value: 1n,
        nonce: 2n,
        validAfter: 0n,
        validBefore: 2n ** 256n - 1n,
        policyId: `0x${'12'.repeat(32)}`,
      }
      const expected = encodeAbiParameters([intentAbiParameter], [toIntentTuple(intent)])
      assert.equal(encodeIntent(intent), expected, `data of ${length} bytes`)
      assert.equal(evmRuntime.hashIntent({ ...intent }), keccak256(expected))
    }
  })
})
