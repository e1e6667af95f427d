// The console feed's bound: a viewer that stops reading never holds more than `buffer` frames (it
// is resynchronized with a snapshot once it drains), while a viewer that reads gets every change;
// however many viewers, the journal is read by one poller.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import pino from 'pino'
import type { ExecutionRecord, Journal } from '../ports/journal.ts'
import { createOpsFeed } from './createOpsFeed.ts'
import type { OpsSwitches } from './createOpsSwitches.ts'
import type { OpsState } from './gatherOpsState.ts'

const record = (id: number): ExecutionRecord =>
  ({
    id,
    chainId: 'eip155:1',
    intentHash: `0x${id.toString(16).padStart(64, '0')}`,
    attempt: 1,
    state: 'mined',
    status: 0x11,
    final: true,
    createdAt: new Date(),
    updatedAt: new Date(),
  }) as unknown as ExecutionRecord

describe('createOpsFeed', () => {
  it('bounds a stalled viewer, keeps a reading one whole, and reads the journal once per poll', async () => {
    let reads = 0
    let next = 0
    const journal = {
      changePositionAt: async () => ({ change: 0, id: 0 }),
      changesAfter: async () => {
        reads++
        const records = Array.from({ length: 50 }, () => record(++next))
        return { records, position: { change: next, id: 0 } }
      },
    } as unknown as Journal
    const switches = { onChange: () => () => {} } as unknown as OpsSwitches
    const feed = createOpsFeed({
      journal,
      switches,
      snapshot: async () => ({ at: 'now' }) as unknown as OpsState,
      logger: pino({ level: 'silent' }),
      pollMs: 5,
      buffer: 32,
      settledShown: 10,
      stuckAfterMs: 1000,
    })
    let drain: (() => void) | undefined
    const stalled = feed.subscribe({ write: () => false, onDrain: (listener) => (drain = listener) })
    const frames: string[] = []
    feed.subscribe({ write: (f) => (frames.push(f), true), onDrain: () => {} })
    const readsBefore = reads
    await feed.start()
    let most = 0
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 10))
      most = Math.max(most, feed.queued())
    }
    await feed.stop()
    // Many rounds of 50 changes went by; the stalled one holds at most the bound.
    assert.ok(next > 500, `only ${next} changes`)
    assert.ok(most <= 32, `queued at most ${most}`)
    const intents = frames.filter((f) => f.startsWith('event: intent'))
    assert.equal(intents.length, next - 50 * readsBefore)
    assert.ok(frames.some((f) => f.startsWith('event: state')))
    assert.equal(feed.settled().length, 10)
    // Two viewers, one reader: reads are per poll, not per viewer (one per round of 50, up to ten rounds a poll).
    assert.equal(reads * 50, next)
    drain?.()
    stalled.close()
  })
})
