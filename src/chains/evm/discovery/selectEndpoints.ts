// Chooses which registry endpoints a gateway can use, in order of preference: only plain
// http(s) URLs without `${...}` placeholders (those need an API key we do not have), endpoints
// that do not track users first, at most `limit` of them.
import type { ChainListRpc, Tracking } from './parseChainList.ts'

const preference: Record<Tracking, number> = { none: 0, limited: 1, unspecified: 2, yes: 3 }

export function selectEndpoints(rpcs: ChainListRpc[], limit = 5): string[] {
  const seen = new Set<string>()
  return rpcs
    .filter((r) => {
      if (r.url.includes('${')) return false
      let url: URL
      try {
        url = new URL(r.url)
      } catch {
        return false
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
      if (seen.has(r.url)) return false
      seen.add(r.url)
      return true
    })
    .map((r, index) => ({ r, index }))
    .sort((a, b) => preference[a.r.tracking] - preference[b.r.tracking] || a.index - b.index)
    .slice(0, limit)
    .map(({ r }) => r.url)
}
