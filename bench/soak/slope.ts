// The least-squares slope of y over x: how fast a series moves, per unit of x, through its noise.
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length
  if (n < 2) return 0
  const meanX = points.reduce((s, [x]) => s + x, 0) / n
  const meanY = points.reduce((s, [, y]) => s + y, 0) / n
  let num = 0
  let den = 0
  for (const [x, y] of points) {
    num += (x - meanX) * (y - meanY)
    den += (x - meanX) ** 2
  }
  return den === 0 ? 0 : num / den
}
