import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type BlockPace, createBlockPace, nextDueIn, nextReadDelay, noteHead, spacingOf } from './blockPace.ts'

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

  it("reads the spacing off the earliest of the last sightings (eight or more): late reads among prompt ones do not pull it off the chain's", () => {
    // 200 ms blocks, read 0, 50, 10 or 60 ms after each was made: steps 250, 160, 250, 140, ...
    const late = [0, 50, 10, 60, 0, 50, 10, 60, 0, 50]
    const pace = seen(...late.map((l, i) => i * 200 + l))
    assert.equal(
      [...pace.spacings].sort((a, b) => a - b)[4],
      250,
      "the median of the steps alone: a quarter over the chain's",
    )
    assert.equal(spacingOf(pace), 200)
  })

  it('has the next block due a spacing after the earliest the last sightings put the last head: one seen late does not move it', () => {
    const pace = seen(0, 200, 400, 600, 800, 1000, 1200, 1400, 1600)
    noteHead(pace, 10n, 1870) // made at 1800, read 70 ms late
    assert.equal(spacingOf(pace), 200)
    assert.equal(nextDueIn(pace, 1870), 130, 'due at 2000, not 2070')
    assert.equal(nextReadDelay(pace, 1900, 50), 50)
    assert.equal(nextReadDelay(pace, 1960, 50), 20, 'reads from 1980: two fine steps before 2000')
    noteHead(pace, 11n, 1990) // seen before the sightings put it: it is the anchor
    assert.ok(Math.abs(nextDueIn(pace, 1990)! - 200) < 2, `due ~200 ms after it: ${nextDueIn(pace, 1990)}`)
    assert.equal(nextDueIn(createBlockPace(), 0), undefined, 'no spacing, no due time')
  })

  it('forgets the sightings before a lull: the next due time comes from the heads after it', () => {
    const pace = seen(0, 200, 400, 600, 800, 1000)
    noteHead(pace, 20n, 10_050) // 14 blocks later: a lull
    assert.deepEqual(pace.sightings, [{ head: 20n, at: 10_050 }])
    assert.equal(nextDueIn(pace, 10_050), 200, 'a spacing after its own sighting')
  })
})
