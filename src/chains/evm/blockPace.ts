// When the chain's next block is due, from when the receipt watch saw the last ones. The watch
// reads the head every interval (RECEIPT_POLL_MS), so it saw a block on average half an interval
// after it was made, and answered every execution in it that much later. Once the chain's spacing
// is known (the median of the last steps between two head reads, per block), the watch reads the
// head every `fine` ms from just before the next block is due until it is seen, and at its interval
// otherwise: a block is seen within about `fine` of when it is made, for a few more head reads a
// block. Blocks closer together than twice that window are read at the interval, as before. Past
// the window a chain that did not keep its pace (a missed slot, a stall) is read at the interval
// again, and the next block seen sets the pace anew (docs/performance.md, tenth session).

/** Where the chain's blocks were seen: the last head and when; the last steps of one block. */
export type BlockPace = { head: bigint | undefined; seenAt: number; spacings: number[] }

/** The spacing is the median of this many of the last steps, once there are at least `minSteps`. */
const keptSteps = 9
const minSteps = 3
/** A step is taken from two head reads at most this many blocks apart (more: a lull, or a chain that stalled and caught up). */
const maxJump = 4n
/** Head reads come this often around a block's due time: a twentieth of the spacing, no less than 10 ms and no longer than the interval. */
const fineShare = 20
const fineFloorMs = 10
/** Reads at `fine` begin this many `fine` before the block is due, and end this many after it when it does not come. */
const leadSteps = 2
const lagSteps = 4

export const createBlockPace = (): BlockPace => ({ head: undefined, seenAt: 0, spacings: [] })

/**
 * A head read at `now`: a newer head moves the pace's anchor to it, and a head at most `maxJump`
 * blocks on from the last also gives a step (the time between the two reads over the blocks between
 * them: a watch that reads less often than blocks come learns the pace too). An older head
 * (another endpoint behind) and the same head change nothing.
 */
export function noteHead(pace: BlockPace, head: bigint, now: number): void {
  if (pace.head !== undefined && head <= pace.head) return
  if (pace.head !== undefined && head - pace.head <= maxJump) {
    pace.spacings.push((now - pace.seenAt) / Number(head - pace.head))
    if (pace.spacings.length > keptSteps) pace.spacings.shift()
  }
  pace.head = head
  pace.seenAt = now
}

/** The chain's spacing between blocks as seen, in ms; undefined until enough steps were seen. */
export function spacingOf({ spacings }: BlockPace): number | undefined {
  if (spacings.length < minSteps) return undefined
  const sorted = [...spacings].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** How long the watch waits before its next head read at `now`, at most `intervalMs`. */
export function nextReadDelay(pace: BlockPace, now: number, intervalMs: number): number {
  const spacing = spacingOf(pace)
  if (spacing === undefined || spacing <= 0) return intervalMs
  const fine = Math.min(intervalMs, Math.max(fineFloorMs, spacing / fineShare))
  // Blocks too close together for a window around each (an automining devnet, a burst): the interval.
  if ((leadSteps + lagSteps) * fine * 2 > spacing) return intervalMs
  // The next due time whose window has not passed (after a missed block, the one after it).
  const steps = Math.max(1, Math.ceil((now - pace.seenAt - lagSteps * fine) / spacing))
  const due = pace.seenAt + steps * spacing
  const from = due - leadSteps * fine
  return now >= from ? fine : Math.min(intervalMs, from - now)
}
