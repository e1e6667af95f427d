// The calls of one event-loop turn, run together: each call's item joins the turn's batch, which
// goes at the next setImmediate (at once when `max` items wait), so the journal's writes of a
// block's settlements, or of a wave's claims, are one statement and one round trip to PostgreSQL
// instead of one each. `run` answers every item by its index; when it throws, every caller of the
// batch gets that error (the database is unreachable for all of them alike).

/** One call's place in a batch. */
export type TurnBatch<A, R> = (item: A) => Promise<R>

export function createTurnBatch<A, R>(
  run: (items: A[]) => Promise<R[]>,
  { max = 500 }: { max?: number } = {},
): TurnBatch<A, R> {
  let waiting: { item: A; resolve: (result: R) => void; reject: (err: unknown) => void }[] = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    const batch = waiting
    waiting = []
    if (batch.length === 0) return
    run(batch.map((w) => w.item)).then(
      (results) => batch.forEach((w, i) => w.resolve(results[i] as R)),
      (err: unknown) => {
        for (const w of batch) w.reject(err)
      },
    )
  }
  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject })
      if (waiting.length >= max) flush()
      else if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    })
}
