// When the chain's next block is due, from when the receipt watch saw the last ones. The watch
// reads the head every interval (RECEIPT_POLL_MS), so it saw a block on average half an interval
// after it was made, and answered every execution in it that much later. Once the chain's spacing
// is known (below), the watch reads the head every `fine` ms from just before the next block is due
// until it is seen, and at its interval otherwise: a block is seen within about `fine` of when it
// is made, for a few more head reads a block. Blocks closer together than twice that window are
// read at the interval, as before. Past the window a chain that did not keep its pace (a missed
// slot, a stall) is read at the interval again, and the next block seen sets the pace anew
// (docs/performance.md, tenth session).
// A head read is never early, often late (the loop busy, the watch at its interval, the node slow to
// answer): one late sighting then a prompt one make a short step, and the median of steps ran 2–10%
// under anvil's 200 ms in the execute bench. So the spacing is read off the earliest sightings (the
// lower hull of the last ones), and a block is due a spacing after when the last head was made: the
// earliest that the last sightings, carried forward at the spacing, put it (docs/performance.md,
// thirty-second session).

/** A new head, and when it was read. */
type Sighting = { head: bigint; at: number }
/** Where the chain's blocks were seen: the last head and when; the last steps of one block; the last new heads. */
export type BlockPace = { head: bigint | undefined; seenAt: number; spacings: number[]; sightings: Sighting[] }

/** The spacing is the median of this many of the last steps, once there are at least `minSteps`. */
const keptSteps = 9
const minSteps = 3
/** A step is taken from two head reads at most this many blocks apart (more: a lull, or a chain that stalled and caught up). */
const maxJump = 4n
/** The spacing is read off the lower hull of the last `keptSightings` sightings, once there are `hullSightings`; the median step before. */
const keptSightings = 16
const hullSightings = 8
/** When the last head was made: the earliest of the last `anchorSightings` sightings carried forward to it. */
const anchorSightings = 8
/** Head reads come this often around a block's due time: a twentieth of the spacing, no less than 10 ms and no longer than the interval. */
const fineShare = 20
const fineFloorMs = 10
/** Reads at `fine` begin this many `fine` before the block is due, and end this many after it when it does not come. */
const leadSteps = 2
const lagSteps = 4

export const createBlockPace = (): BlockPace => ({ head: undefined, seenAt: 0, spacings: [], sightings: [] })

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
  } else pace.sightings.length = 0 // the first head, or one after a lull: the sightings before it may be of another pace
  pace.sightings.push({ head, at: now })
  if (pace.sightings.length > keptSightings) pace.sightings.shift()
  pace.head = head
  pace.seenAt = now
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * The chain's spacing between blocks as seen, in ms; undefined until enough steps were seen. From
 * `hullSightings` sightings on: the slope of the lower hull (the line under every sighting that the
 * earliest touch) where it passes the middle sighting's head, so late reads weigh nothing.
 */
export function spacingOf({ spacings, sightings }: BlockPace): number | undefined {
  if (spacings.length < minSteps) return undefined
  if (sightings.length < hullSightings) return median(spacings)
  const hull: Sighting[] = []
  for (const s of sightings) {
    // The last hull point goes while it is on or above the line from the one before it to `s`.
    while (hull.length >= 2 && !below(hull.at(-2)!, hull.at(-1)!, s)) hull.pop()
    hull.push(s)
  }
  // The hull's edge over the middle sighting (the last sighting, always on the hull, is after it).
  const middle = sightings[Math.floor(sightings.length / 2)]!.head
  const from = hull.findLastIndex((s) => s.head <= middle)
  const [a, b] = [hull[from]!, hull[from + 1]!]
  return (b.at - a.at) / Number(b.head - a.head)
}

/** Whether `b` is under the line from `a` to `c` (heads in that order). */
const below = (a: Sighting, b: Sighting, c: Sighting) =>
  (b.at - a.at) * Number(c.head - a.head) < (c.at - a.at) * Number(b.head - a.head)

/** When the last head seen was made, as far as the sightings tell (never after its own sighting). */
function madeAt({ head, seenAt, sightings }: BlockPace, spacing: number): number {
  let at = seenAt
  for (const s of sightings.slice(-anchorSightings)) at = Math.min(at, s.at + Number(head! - s.head) * spacing)
  return at
}

/** In how many ms the next block is due at `now` (negative: overdue); undefined until the spacing is known. */
export function nextDueIn(pace: BlockPace, now: number, spacing = spacingOf(pace)): number | undefined {
  if (spacing === undefined || spacing <= 0) return undefined
  return madeAt(pace, spacing) + spacing - now
}

/** How long the watch waits before its next head read at `now`, at most `intervalMs`. */
export function nextReadDelay(pace: BlockPace, now: number, intervalMs: number): number {
  const spacing = spacingOf(pace)
  if (spacing === undefined || spacing <= 0) return intervalMs
  const fine = Math.min(intervalMs, Math.max(fineFloorMs, spacing / fineShare))
  // Blocks too close together for a window around each (an automining devnet, a burst): the interval.
  if ((leadSteps + lagSteps) * fine * 2 > spacing) return intervalMs
  // The next due time whose window has not passed (after a missed block, the one after it).
  const made = madeAt(pace, spacing)
  const steps = Math.max(1, Math.ceil((now - made - lagSteps * fine) / spacing))
  const due = made + steps * spacing
  const from = due - leadSteps * fine
  return now >= from ? fine : Math.min(intervalMs, from - now)
}
