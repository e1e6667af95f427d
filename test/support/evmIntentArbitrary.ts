// fast-check arbitraries for the EVM property tests: random bytes as hex, and intents whose call
// data may run up to `maxData` bytes.
import fc from 'fast-check'
import { getAddress, type Hex } from 'viem'
import type { Intent } from '../../src/ports/intent.ts'

export const hexBytes = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)

const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })

export function evmIntents(data: fc.Arbitrary<Hex> = hexBytes(0, 200)): fc.Arbitrary<Intent> {
  return fc.record({
    sender: hexBytes(20, 20).map((a) => getAddress(a)),
    target: hexBytes(20, 20),
    data,
    value: uint256,
    nonce: uint256,
    validAfter: uint256,
    validBefore: uint256,
    policyId: hexBytes(32, 32),
  }) as fc.Arbitrary<Intent>
}
