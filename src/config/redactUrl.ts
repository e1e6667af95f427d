// RPC URLs often carry API keys (in userinfo, a path segment or the query string); this is the
// only form in which a URL may reach a log line or a response.

const secretLike = /^[A-Za-z0-9_-]{16,}$/

export function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return '<invalid url>'
  }
  const userinfo = parsed.username || parsed.password ? '***@' : ''
  const path = parsed.pathname
    .split('/')
    .map((segment) => (secretLike.test(segment) ? '***' : segment))
    .join('/')
  const query = [...parsed.searchParams.keys()].map((key) => `${key}=***`).join('&')
  return `${parsed.protocol}//${userinfo}${parsed.host}${path}${query ? `?${query}` : ''}`
}

const urlInText = /\b(?:https?|wss?):\/\/[^\s"'<>\\]+/g

/** Redacts every URL inside a text (viem error messages quote the RPC URL they called). */
export function redactUrlsIn(text: string): string {
  return text.replace(urlInText, (url) => redactUrl(url))
}
