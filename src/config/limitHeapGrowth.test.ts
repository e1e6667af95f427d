// The heap growth limit takes effect when set after start-up, on the Node that runs the gateway: a
// child process holding ~20 MB live while garbage survives long enough to reach the old space
// peaks far lower with it than with V8's own growth.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, it } from 'node:test'

const churn = `
import { limitHeapGrowth } from './src/config/limitHeapGrowth.ts'
limitHeapGrowth(Number(process.env.PERCENT))
const live = Array.from({ length: 200_000 }, (_, i) => ({ i, s: 'live ' + i }))
const recent = []
let peak = 0
for (let r = 0; r < 400; r++) {
  recent.push(Array.from({ length: 10_000 }, (_, j) => ({ j, s: 'garbage ' + r + ' ' + j })))
  if (recent.length > 8) recent.shift()
  peak = Math.max(peak, process.memoryUsage().heapTotal)
}
process.stdout.write(String(live.length && peak))
`
const peakHeap = (percent: number) =>
  Number(
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', churn], {
      env: { ...process.env, PERCENT: String(percent) },
      encoding: 'utf8',
    }),
  )

describe('limitHeapGrowth', () => {
  it('keeps the peak heap far below what V8 lets it reach on its own', () => {
    const own = peakHeap(0)
    const limited = peakHeap(50)
    assert.ok(
      limited < own * 0.8,
      `peak heap ${Math.round(limited / 2 ** 20)} MB at 50%, ${Math.round(own / 2 ** 20)} MB with V8's own growth`,
    )
  })
})
