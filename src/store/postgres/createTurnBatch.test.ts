import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createTurnBatch } from './createTurnBatch.ts'

describe('createTurnBatch', () => {
  it('runs the calls of one turn together, each answered by its own index, and the next turn apart', async () => {
    const runs: number[][] = []
    const double = createTurnBatch<number, number>(async (items) => {
      runs.push(items)
      return items.map((n) => n * 2)
    })
    assert.deepEqual(await Promise.all([1, 2, 3].map(double)), [2, 4, 6])
    assert.deepEqual(await double(4), 8)
    assert.deepEqual(runs, [[1, 2, 3], [4]])
  })

  it('sends a full batch at once, without waiting for the end of the turn', async () => {
    const runs: number[][] = []
    const echo = createTurnBatch<number, number>(
      async (items) => {
        runs.push(items)
        return items
      },
      { max: 2 },
    )
    const answers = [1, 2, 3].map(echo)
    assert.deepEqual(runs, [[1, 2]], 'the first two went as the second was asked')
    assert.deepEqual(await Promise.all(answers), [1, 2, 3])
    assert.deepEqual(runs, [[1, 2], [3]])
  })

  it("gives every caller of a batch the batch's error, and the next batch runs again", async () => {
    let fail = true
    const echo = createTurnBatch<number, number>(async (items) => {
      if (fail) throw new Error('unreachable')
      return items
    })
    const answers = await Promise.allSettled([1, 2].map(echo))
    assert.deepEqual(
      answers.map((a) => a.status === 'rejected' && (a.reason as Error).message),
      ['unreachable', 'unreachable'],
    )
    fail = false
    assert.equal(await echo(3), 3)
  })
})
