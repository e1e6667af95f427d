// What the receipt watch's pace costs the gateway a head read, in-process: the spacing off the last
// sixteen sightings (their lower hull) and the next read's delay, over sightings read up to 60 ms
// late (thirty-second session).
//   npx tsx bench/paceCost.ts
import { createBlockPace, nextReadDelay, noteHead, spacingOf } from '../src/chains/evm/blockPace.ts'

const pace = createBlockPace()
for (let i = 1; i <= 20; i++) noteHead(pace, BigInt(i), i * 200 + ((i * 37) % 60))
let sink = 0
const read = (i: number) => spacingOf(pace)! + nextReadDelay(pace, 4100 + (i % 100), 50)
for (let i = 0; i < 20_000; i++) sink += read(i) // warm-up
const reads = 200_000
const start = performance.now()
for (let i = 0; i < reads; i++) sink += read(i)
const us = ((performance.now() - start) / reads) * 1000
console.log(`${us.toFixed(2)} µs a head read (spacingOf and nextReadDelay)${sink > 0 ? '' : ' '}`)
