import assert from 'node:assert/strict'
import { test } from 'node:test'
import { leastSquaresSlope } from './leastSquaresSlope.ts'

test('the slope of a line is its slope, whatever its offset', () => {
  assert.equal(leastSquaresSlope([0, 10, 20, 30].map((x) => ({ x, y: 5 + 0.5 * x }))), 0.5)
  assert.equal(leastSquaresSlope([0, 10, 20, 30].map((x) => ({ x, y: 7 }))), 0)
})

test('a sawtooth around a flat level fits near zero; the same sawtooth on a rising floor fits the rise', () => {
  const saw = Array.from({ length: 180 }, (_, i) => ({ x: i * 10, y: 60 + (i % 6) * 4 }))
  assert.ok(Math.abs(leastSquaresSlope(saw)) < 0.001)
  const rising = saw.map((p) => ({ x: p.x, y: p.y + p.x * 0.01 }))
  assert.ok(Math.abs(leastSquaresSlope(rising) - 0.01) < 0.001)
})

test('fewer than two points, or all at one x, have no slope: 0', () => {
  assert.equal(leastSquaresSlope([]), 0)
  assert.equal(leastSquaresSlope([{ x: 1, y: 2 }]), 0)
  assert.equal(
    leastSquaresSlope([
      { x: 1, y: 2 },
      { x: 1, y: 5 },
    ]),
    0,
  )
})
