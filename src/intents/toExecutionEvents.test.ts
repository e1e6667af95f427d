import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { claimOf, hash, signedTx } from '../../test/support/journalContract.ts'
import type { ExecutionRecord } from '../ports/journal.ts'
import { isFinished, toExecutionEvents } from './toExecutionEvents.ts'

const at = new Date('2026-11-25T12:00:00Z')
function record(attempt: number, fields: Partial<ExecutionRecord>): ExecutionRecord {
  const { chainId, intentHash, intent } = claimOf(1)
  return {
    id: attempt,
    chainId,
    intentHash,
    attempt,
    intent,
    state: 'pending',
    status: 0xf3,
    transaction: signedTx(attempt),
    blockNumber: undefined,
    blockHash: undefined,
    final: false,
    chainInstance: undefined,
    gasUsed: undefined,
    returnData: undefined,
    detail: undefined,
    createdAt: at,
    updatedAt: at,
    ...fields,
  }
}
const types = (records: ExecutionRecord[]) => toExecutionEvents(records).map((e) => `${e.attempt}:${e.type}`)

describe('toExecutionEvents', () => {
  it('tells a submission, a re-pricing, the block and finality, with ids that depend only on what they report', () => {
    const replaced = record(1, {
      state: 'dropped',
      status: 0xf0,
      final: true,
      detail: 're-priced at relayer nonce 0: max fee 1 → 2 wei per gas (base fee 3)',
    })
    const mined = record(2, { state: 'mined', status: 0x11, blockNumber: 7n, blockHash: hash(7), final: false })
    assert.deepEqual(types([record(1, {})]), ['1:submitted'])
    assert.deepEqual(types([replaced, mined]), ['1:submitted', '2:repriced', '2:mined'])
    assert.equal(isFinished([replaced, mined]), false)
    assert.deepEqual(types([replaced, { ...mined, final: true }]), ['1:submitted', '2:repriced', '2:mined', '2:final'])
    assert.equal(isFinished([replaced, { ...mined, final: true }]), true)
    assert.deepEqual(
      toExecutionEvents([replaced, mined]).map((e) => e.id),
      toExecutionEvents([replaced, mined]).map((e) => e.id),
    )
    assert.equal(toExecutionEvents([mined])[1]!.id, `eip155:1:${hash(1)}:2:mined:${hash(7)}`)
  })

  it('tells a revert and a drop, and nothing for a claim that signed nothing', () => {
    assert.deepEqual(types([record(1, { state: 'reverted', status: 0x50, blockNumber: 3n, final: true })]), [
      '1:submitted',
      '1:reverted',
      '1:final',
    ])
    const dropped = record(1, {
      state: 'dropped',
      status: 0xf0,
      final: true,
      detail: 'transaction 0x… was replaced at relayer nonce 4 and never mined',
    })
    assert.deepEqual(types([dropped]), ['1:submitted', '1:dropped'])
    assert.equal(isFinished([dropped]), true)
    assert.deepEqual(types([record(1, { state: 'claimed', transaction: undefined })]), [])
    assert.equal(isFinished([]), false)
  })

  it('carries the §18 words of each event: the MCP task state and the relayer_* code with its meaning', () => {
    const words = (records: ExecutionRecord[]) =>
      toExecutionEvents(records).map((e) => `${e.type}:${e.statusWords.taskState}:${e.statusWords.relayerStatus}`)
    const mined = record(1, { state: 'mined', status: 0x11, blockNumber: 7n, blockHash: hash(7), final: true })
    assert.deepEqual(words([mined]), ['submitted:working:110', 'mined:working:110', 'final:completed:200'])
    const reverted = record(1, { state: 'reverted', status: 0x50, blockNumber: 3n, final: true })
    assert.deepEqual(words([reverted]), ['submitted:working:110', 'reverted:working:500', 'final:failed:500'])
    const dropped = record(1, { state: 'dropped', status: 0xf0, final: true, detail: 'never mined' })
    assert.deepEqual(words([dropped]), ['submitted:working:110', 'dropped:failed:400'])
    const [final] = toExecutionEvents([mined]).slice(-1)
    assert.equal(final!.statusWords.relayerMeaning, 'included and successful')
    // The id depends on what the event reports, not on its words.
    assert.equal(final!.id, `eip155:1:${hash(1)}:1:final:${hash(7)}`)
  })
})
