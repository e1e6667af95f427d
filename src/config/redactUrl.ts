// RPC URLs often carry API keys (in userinfo, a path segment or the query string); this is the
// only form in which a URL may reach a log line or a response. Every path segment and query
// value is hidden unless it is plainly not a secret: a lower-case word or few joined by `-`, `_`
// or `.` (each with at most two digits after it: `v3`, `base-sepolia`, `eth2`), or a number of
// at most ten digits (a chain id). Keys come in too many shapes (hex, base64 with padding,
// mixed case, short) to be recognised; plain words are what is left of a URL once they are gone.

const plainWord = /^[a-z]{1,16}[0-9]{0,2}$/
const plainNumber = /^[0-9]{1,10}$/
/** Query parameters whose value is a credential whatever it looks like (and terse names: `k`, `t`). */
const credentialName = /key|token|secret|auth|pass|sig|session|cred/i

function isPlain(value: string): boolean {
  if (value === '' || plainNumber.test(value)) return true
  return value.length <= 40 && value.split(/[-_.]/).every((part) => plainWord.test(part))
}

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
    .map((segment) => (isPlain(segment) ? segment : '***'))
    .join('/')
  // Names come from the raw query so that an odd name is redacted the same way as a value.
  const query = parsed.search
    .slice(1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [name = '', ...rest] = pair.split('=')
      const value = rest.join('=')
      const shownName = isPlain(name) ? name : '***'
      return `${shownName}=${name.length > 2 && !credentialName.test(name) && isPlain(value) ? value : '***'}`
    })
    .join('&')
  return `${parsed.protocol}//${userinfo}${parsed.host}${path}${query ? `?${query}` : ''}`
}

const urlInText = /\b(?:https?|wss?):\/\/[^\s"'<>\\]+/g

/** Redacts every URL inside a text (viem error messages quote the RPC URL they called). */
export function redactUrlsIn(text: string): string {
  return text.replace(urlInText, (url) => redactUrl(url))
}
