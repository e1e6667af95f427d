// Reads a chain-list registry in the public rpcs.json format: an array of chains, each with a
// chainId and `rpc` entries that are either a URL string or `{ url, tracking, isOpenSource }`.
// Malformed entries are skipped and counted, never fatal; a document that is not an array is.

export type Tracking = 'none' | 'limited' | 'yes' | 'unspecified'

export type ChainListRpc = { url: string; tracking: Tracking }

export type ChainListEntry = {
  chainId: number
  name: string | undefined
  nativeCurrency: { name: string; symbol: string; decimals: number } | undefined
  rpcs: ChainListRpc[]
}

export type ParsedChainList = { entries: Map<number, ChainListEntry>; skipped: number }

export function parseChainList(doc: unknown): ParsedChainList {
  if (!Array.isArray(doc))
    throw new Error(`the registry is not a JSON array of chains (got ${doc === null ? 'null' : typeof doc})`)
  const entries = new Map<number, ChainListEntry>()
  let skipped = 0
  for (const item of doc) {
    const chainId = (item as { chainId?: unknown })?.chainId
    const rpc = (item as { rpc?: unknown })?.rpc
    if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId <= 0 || !Array.isArray(rpc)) {
      skipped++
      continue
    }
    const rpcs: ChainListRpc[] = []
    for (const r of rpc) {
      if (typeof r === 'string') rpcs.push({ url: r, tracking: 'unspecified' })
      else if (r && typeof r === 'object' && typeof (r as { url?: unknown }).url === 'string') {
        const tracking = (r as { tracking?: unknown }).tracking
        rpcs.push({
          url: (r as { url: string }).url,
          tracking: tracking === 'none' || tracking === 'limited' || tracking === 'yes' ? tracking : 'unspecified',
        })
      }
    }
    const name = (item as { name?: unknown }).name
    const currency = (item as { nativeCurrency?: { name?: unknown; symbol?: unknown; decimals?: unknown } })
      .nativeCurrency
    const nativeCurrency =
      currency &&
      typeof currency.name === 'string' &&
      typeof currency.symbol === 'string' &&
      typeof currency.decimals === 'number'
        ? { name: currency.name, symbol: currency.symbol, decimals: currency.decimals }
        : undefined
    entries.set(chainId, { chainId, name: typeof name === 'string' ? name : undefined, nativeCurrency, rpcs })
  }
  return { entries, skipped }
}
