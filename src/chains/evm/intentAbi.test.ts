import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { encodeAbiParameters, type Hex } from 'viem'
import { evmIntents, hexBytes } from '../../../test/support/evmIntentArbitrary.ts'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'
import { encodeIntent, toIntentTuple } from './evmRuntime.ts'
import { encodeSignedIntent } from './intentAbi.ts'

const intents = evmIntents(fc.oneof(hexBytes(0, 70), hexBytes(0, 1100)))
// 65 bytes (ECDSA), 64 (EIP-2098), and any length a contract wallet's ERC-1271 signature may have; upper case too.
const signatures = fc.oneof(
  hexBytes(65, 65),
  hexBytes(64, 64),
  hexBytes(0, 300),
  hexBytes(0, 100).map((s) => s.toUpperCase().replace('0X', '0x') as Hex),
)
const signedArguments = intentExecutorArtifact.abi.find(
  (i) => i.type === 'function' && i.name === 'executeSigned',
)!.inputs

describe('encodeSignedIntent', () => {
  it("is executeSigned's and checkSigned's abi.encode(intent, signature) exactly as viem encodes it", () => {
    fc.assert(
      fc.property(intents, signatures, (intent, signature) => {
        // The same bytes (viem keeps the signature's digits as given; ours are lower case).
        assert.equal(
          encodeSignedIntent(encodeIntent({ ...intent }), signature),
          encodeAbiParameters(signedArguments, [toIntentTuple(intent), signature]).toLowerCase(),
        )
      }),
      { numRuns: 2000 },
    )
  })
})
