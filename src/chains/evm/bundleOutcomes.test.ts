// Reading a bundle's outcomes from logs, in the cases a mined bundle on anvil does not show
// (test/evm/intentBundler.test.ts reads real receipts): a bundle that reverted as a whole, a call
// that returned without its intent's IntentExecuted, and logs that do not follow the calls' order.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem'
import { intentBundlerArtifact } from '../../contracts/intentBundlerArtifact.ts'
import { readBundleOutcomes } from './bundleOutcomes.ts'
import { intentExecutedTopic } from './intentExecutedLog.ts'

const bundler = '0x673cd70fa883394a1f3deb3221937ceb7c2618d7'
const account = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const calls = [
  { target: account, gasLimit: 100_000n },
  { target: account, gasLimit: 100_000n },
]
const ran = (index: number, success: boolean, gasUsed: bigint, revertData: Hex = '0x') => ({
  address: bundler,
  topics: encodeEventTopics({ abi: intentBundlerArtifact.abi, eventName: 'Ran' }) as Hex[],
  data: encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'bool' }, { type: 'uint256' }, { type: 'bytes' }],
    [BigInt(index), success, gasUsed, revertData],
  ),
})

describe('readBundleOutcomes', () => {
  it('says every call of a bundle that reverted as a whole was not run, none of them its intent’s outcome', () => {
    const outcomes = readBundleOutcomes({ bundler, calls, status: 'reverted', logs: [] })
    assert.deepEqual(
      outcomes.map((o) => [o.index, o.kind]),
      [
        [0, 'unrun'],
        [1, 'unrun'],
      ],
    )
  })

  it('says a call that returned without its IntentExecuted is silent, not executed (an account whose authorization was skipped)', () => {
    const outcomes = readBundleOutcomes({
      bundler,
      calls,
      status: 'success',
      logs: [ran(0, true, 30_000n), ran(1, false, 40_000n)],
    })
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['silent', 'reverted'],
    )
    // A revert without data that did not use up its limit is the call's own revert.
    assert.equal((outcomes[1] as { status: number }).status, 0x00)
  })

  it('takes only its own intent’s IntentExecuted from its target, when the call names the intent', () => {
    const hash = `0x${'ab'.repeat(32)}` as Hex
    const executed = (intentHash: Hex) => ({
      address: account,
      topics: [intentExecutedTopic, intentHash, `0x${'00'.repeat(12)}${bundler.slice(2)}`] as Hex[],
      data: encodeAbiParameters([{ type: 'bytes1' }, { type: 'bytes' }], ['0x11', '0x']),
    })
    const named = [{ target: account, gasLimit: 100_000n, intentHash: hash }]
    const read = (logs: ReturnType<typeof executed>[]) =>
      readBundleOutcomes({ bundler, calls: named, status: 'success', logs: [...logs, ran(0, true, 30_000n)] })[0]!.kind
    assert.equal(read([executed(hash)]), 'executed')
    assert.equal(read([executed(`0x${'cd'.repeat(32)}`)]), 'silent')
  })

  it('refuses logs out of the calls’ order, or for a call the bundle did not have, rather than pin an outcome on the wrong intent', () => {
    assert.throws(
      () => readBundleOutcomes({ bundler, calls, status: 'success', logs: [ran(1, true, 30_000n)] }),
      /call 1 where call 0 was due/,
    )
    // Calls missing from a successful run's logs, with no LeftUnrun: not taken for unrun (they would be sent again).
    assert.throws(
      () => readBundleOutcomes({ bundler, calls, status: 'success', logs: [ran(0, true, 30_000n)] }),
      /logged 1 of its 2 calls and did not say it left the rest unrun/,
    )
    assert.throws(
      () =>
        readBundleOutcomes({
          bundler,
          calls,
          status: 'success',
          logs: [ran(0, true, 1n), ran(1, true, 1n), ran(2, true, 1n)],
        }),
      /call 2, which is not one of its 2 calls/,
    )
  })
})
