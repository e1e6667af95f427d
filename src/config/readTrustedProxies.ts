// TRUSTED_PROXIES: the proxies whose X-Forwarded-For is believed, comma-separated IP addresses
// and CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`); unset: none, every peer is the client itself.
// A bad entry is a problem naming it; the list keeps the good ones.
import { isIP } from 'node:net'

export function readTrustedProxies(env: Record<string, string | undefined>, problems: string[]): string[] {
  const entries = (env.TRUSTED_PROXIES ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  const proxies: string[] = []
  entries.forEach((entry, i) => {
    const [address, prefix, ...rest] = entry.split('/') as [string, string | undefined, ...string[]]
    const version = isIP(address)
    const bits = version === 4 ? 32 : 128
    if (version === 0 || rest.length > 0)
      problems.push(
        `TRUSTED_PROXIES: entry ${i + 1} "${entry.slice(0, 50)}" is not an IP address or CIDR range (such as 10.0.0.1 or 10.0.0.0/8)`,
      )
    else if (prefix !== undefined && (!/^[0-9]{1,3}$/.test(prefix) || Number(prefix) > bits)) {
      problems.push(
        `TRUSTED_PROXIES: entry ${i + 1} "${entry.slice(0, 50)}" has a prefix length that is not an integer between 0 and ${bits}`,
      )
    } else proxies.push(prefix === undefined ? address : `${address}/${Number(prefix)}`)
  })
  return proxies
}
