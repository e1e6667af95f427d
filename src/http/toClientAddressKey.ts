// The key one client is counted under (open connections, rate limits): an IPv4 address as it is,
// an IPv4-mapped IPv6 address as its IPv4, any other IPv6 address by its /64 prefix, since one
// host is usually given a whole /64 and could otherwise take a new address for every connection.
import { isIPv4, isIPv6 } from 'node:net'

export function toClientAddressKey(address: string): string {
  if (isIPv4(address)) return address
  // A zone (fe80::1%eth0) names the local interface, not the client.
  const bare = address.split('%')[0]!
  if (!isIPv6(bare)) return address
  const groups = toIpv6Groups(bare)
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a trailing dotted IPv4 expanded). */
function toIpv6Groups(address: string): number[] {
  let text = address.toLowerCase()
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)))
  const left = parse(head)
  if (tail === undefined) return left
  const right = parse(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}
