// A whole-number setting within bounds; a missing one is its fallback (or a problem when it has none).

export function readInteger(
  env: Record<string, string | undefined>,
  name: string,
  bounds: { min: number; max: number; fallback: number | undefined },
  problems: string[],
): number | undefined {
  const raw = env[name]?.trim()
  if (!raw) {
    if (bounds.fallback === undefined) problems.push(`${name}: required`)
    return bounds.fallback
  }
  const value = Number(raw)
  if (!/^[0-9]+$/.test(raw) || value < bounds.min || value > bounds.max) {
    problems.push(`${name}: "${raw.slice(0, 20)}" is not an integer between ${bounds.min} and ${bounds.max}`)
    return undefined
  }
  return value
}
