// What is wrong with a URL the gateway is to fetch from (an RPC endpoint, a registry), or undefined.

export function checkRpcUrl(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'not a valid URL'
  }
  // Only the scheme is named: the rest of the URL may hold credentials.
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `scheme ${url.protocol} is not supported (use http or https)`
  return undefined
}
