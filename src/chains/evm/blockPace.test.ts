import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type BlockPace, createBlockPace, nextReadDelay, noteHead, spacingOf } from './blockPace.ts'

/** A pace that saw blocks 1… at `at` (ms). */
function seen(...at: number[]): BlockPace {
  const pace = createBlockPace()
  at.forEach((t, i) => noteHead(pace, BigInt(i + 1), t))
  return pace
}

describe('blockPace', () => {
  it('reads at the interval until three single-block steps were seen', () => {
    assert.equal(nextReadDelay(createBlockPace(), 0, 50), 50)
    assert.equal(nextReadDelay(seen(0, 200, 400), 410, 50), 50, 'two steps')
    assert.equal(spacingOf(seen(0, 200, 400, 600)), 200)
  })

  it('waits at most the interval, then reads every twentieth of the spacing (10 ms at least) from two of those before the block is due', () => {
    const pace = seen(0, 200, 400, 600) // due at 800; fine = 10 ms; reads from 780
    assert.equal(nextReadDelay(pace, 610, 50), 50)
    assert.equal(nextReadDelay(pace, 740, 50), 40, 'up to the window, not past it')
    assert.equal(nextReadDelay(pace, 780, 50), 10)
    assert.equal(nextReadDelay(pace, 815, 50), 10, 'the block is late: still reading finely')
    const slow = seen(0, 2000, 4000, 6000) // fine = 100 ms; reads from 7800
    assert.equal(nextReadDelay(slow, 6100, 200), 200)
    assert.equal(nextReadDelay(slow, 7700, 200), 100)
    assert.equal(nextReadDelay(slow, 7850, 200), 100)
  })

  it('after a window with no block, reads at the interval up to the next due time', () => {
    const pace = seen(0, 200, 400, 600) // window 780–840 for 800; the next 980–1040 for 1000
    assert.equal(nextReadDelay(pace, 845, 50), 50)
    assert.equal(nextReadDelay(pace, 950, 50), 30)
    assert.equal(nextReadDelay(pace, 990, 50), 10)
  })

  it('is set anew by each block seen: a block seen early moves the next due time', () => {
    const pace = seen(0, 200, 400, 600)
    noteHead(pace, 5n, 760) // seen before its window (due 800); steps 200, 200, 200, 160: the spacing stays 200
    assert.equal(spacingOf(pace), 200)
    assert.equal(nextReadDelay(pace, 770, 50), 50, 'the next is due at 960')
    assert.equal(nextReadDelay(pace, 940, 50), 10)
  })

  it('takes a step per block from heads up to four blocks apart; an older or the same head changes nothing, a longer jump only moves the anchor', () => {
    const pace = seen(0, 200, 400, 600)
    noteHead(pace, 4n, 700)
    noteHead(pace, 3n, 710)
    assert.deepEqual(pace.spacings, [200, 200, 200])
    assert.equal(pace.seenAt, 600)
    noteHead(pace, 7n, 1200) // three blocks between two reads: 200 ms a block
    assert.deepEqual(pace.spacings, [200, 200, 200, 200])
    noteHead(pace, 12n, 5000) // a lull: no step
    assert.deepEqual(pace.spacings, [200, 200, 200, 200])
    assert.equal(pace.seenAt, 5000)
    assert.equal(pace.head, 12n)
  })

  it('learns the pace from a watch that reads less often than blocks come', () => {
    const pace = createBlockPace()
    for (let read = 0; read <= 4; read++) noteHead(pace, BigInt(1 + read * 3), read * 600) // three 200 ms blocks a read
    assert.equal(spacingOf(pace), 200)
  })

  it('keeps the median of the last nine steps: an odd step does not move it', () => {
    const pace = seen(0, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800)
    noteHead(pace, 11n, 2700) // a missed slot: 900 ms
    assert.equal(spacingOf(pace), 200)
    assert.equal(pace.spacings.length, 9)
  })

  it('reads at the interval where blocks come closer together than twice the window (an automining devnet)', () => {
    assert.equal(nextReadDelay(seen(0, 5, 10, 15), 16, 200), 200)
    assert.equal(
      nextReadDelay(seen(0, 100, 200, 300), 301, 200),
      200,
      '100 ms blocks: a 60 ms window is more than half',
    )
    assert.equal(nextReadDelay(seen(0, 120, 240, 360), 361, 50), 50)
    assert.equal(nextReadDelay(seen(0, 120, 240, 360), 460, 50), 10, '120 ms blocks: reads from 460')
  })

  it('reads at the interval where an operator set it below the fine step', () => {
    assert.equal(nextReadDelay(seen(0, 2000, 4000, 6000), 7900, 20), 20)
  })
})
