import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { type Hex, encodeAbiParameters, getAddress } from 'viem'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'
import type { Intent } from '../../ports/intent.ts'
import { encodeIntent, toIntentTuple } from './evmRuntime.ts'
import { encodeSignedIntent } from './intentAbi.ts'

const hex = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })
const intents = fc.record({
  sender: hex(20, 20).map((a) => getAddress(a)),
  target: hex(20, 20),
  data: fc.oneof(hex(0, 70), hex(0, 1100)),
  value: uint256,
  nonce: uint256,
  validAfter: uint256,
  validBefore: uint256,
  policyId: hex(32, 32),
}) as fc.Arbitrary<Intent>
// 65 bytes (ECDSA), 64 (EIP-2098), and any length a contract wallet's ERC-1271 signature may have; upper case too.
const signatures = fc.oneof(
  hex(65, 65),
  hex(64, 64),
  hex(0, 300),
  hex(0, 100).map((s) => s.toUpperCase().replace('0X', '0x') as Hex),
)
const signedArguments = intentExecutorArtifact.abi.find((i) => i.type === 'function' && i.name === 'executeSigned')!.inputs

describe('encodeSignedIntent', () => {
  it("is executeSigned's and checkSigned's abi.encode(intent, signature) exactly as viem encodes it", () => {
    fc.assert(
      fc.property(intents, signatures, (intent, signature) => {
        // The same bytes (viem keeps the signature's digits as given; ours are lower case).
        assert.equal(encodeSignedIntent(encodeIntent({ ...intent }), signature), encodeAbiParameters(signedArguments, [toIntentTuple(intent), signature]).toLowerCase())
      }),
      { numRuns: 2000 },
    )
  })
})
