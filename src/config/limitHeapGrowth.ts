// How far V8 lets the JavaScript heap grow past what its last full collection kept, before the
// next one (HEAP_GROWING_PERCENT). The gateway's live heap stays near 30 MB under load, but with
// V8's own factor garbage piles up to several times that first: the bench's peak resident size
// was ~270 MB with it, ~170 MB at 50% (the default), ~160 MB at 20% (with a longer p99 at 10
// connections). V8 reads the flag each time it sets the next collection's limit, so setting it
// after start-up takes effect from the next collection on (a test checks this Node honours it).
import { setFlagsFromString } from 'node:v8'

/** 0 leaves V8's own growth. */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`)
}
