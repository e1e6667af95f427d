import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  decodeFunctionResult,
  encodeFunctionData,
  encodeFunctionResult,
  getAddress,
  type Hex,
  multicall3Abi,
} from 'viem'
import { decodeAggregate3Result, encodeAggregate3 } from './aggregate3Codec.ts'

const hex = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)
const calls = fc.array(fc.record({ target: hex(20, 20).map((a) => getAddress(a)), callData: hex(0, 300) }), {
  maxLength: 70,
})
const results = fc.array(fc.record({ success: fc.boolean(), returnData: hex(0, 200) }), { maxLength: 70 })

describe('aggregate3 codec', () => {
  it('encodes aggregate3 exactly as viem does, for any calls', () => {
    fc.assert(
      fc.property(calls, (cs) => {
        const expected = encodeFunctionData({
          abi: multicall3Abi,
          functionName: 'aggregate3',
          args: [cs.map((c) => ({ ...c, allowFailure: true }))],
        })
        assert.equal(encodeAggregate3(cs), expected)
      }),
      { numRuns: 300 },
    )
  })

  it('decodes any aggregate3 result as viem does', () => {
    fc.assert(
      fc.property(results, (rs) => {
        const encoded = encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: rs })
        assert.deepEqual(
          decodeAggregate3Result(encoded),
          decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: encoded }),
        )
      }),
      { numRuns: 300 },
    )
  })

  it('refuses a truncated or corrupted result instead of reading past it', () => {
    fc.assert(
      fc.property(
        results.filter((rs) => rs.length > 0),
        fc.nat(),
        fc.nat(),
        (rs, cut, flip) => {
          const encoded = encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: rs })
          const truncated = encoded.slice(0, 2 + (cut % ((encoded.length - 2) / 2)) * 2) as Hex
          let decoded: unknown
          try {
            decoded = decodeAggregate3Result(truncated)
          } catch {
            return // refused: fine
          }
          // A prefix that still decodes must be one whose cut fell only in the last return data's padding.
          assert.deepEqual(
            decoded,
            rs.map((r) => ({ ...r })),
          )
          // A word of garbage in the head is refused or decoded, never a crash of another kind.
          const at = 2 + (flip % 4) * 64
          const corrupted = `${encoded.slice(0, at)}${'f'.repeat(64)}${encoded.slice(at + 64)}` as Hex
          try {
            decodeAggregate3Result(corrupted)
          } catch (err) {
            assert.match((err as Error).message, /^aggregate3 result/)
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
