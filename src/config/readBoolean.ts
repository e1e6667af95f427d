// One boolean setting: `true`/`1` or `false`/`0` (any case); unset is the fallback; anything else
// is a problem naming the variable. Shared by every config module.
export function readBoolean(
  env: Record<string, string | undefined>,
  name: string,
  problems: string[],
  fallback = false,
): boolean {
  const raw = env[name]?.trim().toLowerCase()
  if (!raw) return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  problems.push(`${name}: "${raw.slice(0, 20)}" is not true or false`)
  return fallback
}
