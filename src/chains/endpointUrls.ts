// What an endpoint's URL says before it is ever called: whether production may call it at all,
// and the credentials in it, which fetch will not send as userinfo.
import { isPublicAddress } from '../net/isPublicAddress.ts'

/** Why a discovered URL is refused outright in production, if it is: its scheme or its IP literal. */
export function refuseInward(url: string): string | undefined {
  const { protocol, hostname } = new URL(url)
  if (protocol !== 'https:') return 'discovered endpoints must use https in production'
  const literal = hostname.replace(/^\[|\]$/g, '')
  // A literal address is never looked up; a name is checked by publicOnlyLookup on each connection.
  if (/^[0-9.]+$/.test(literal) || literal.includes(':')) {
    if (!isPublicAddress(literal))
      return `discovered endpoints must not be at a loopback, private or link-local address in production (${literal})`
  }
  return undefined
}

/** fetch refuses URLs with userinfo: send it as Basic authorization instead. */
export function splitCredentials(url: string): { target: string; headers: Record<string, string> } {
  const parsed = new URL(url)
  if (!parsed.username && !parsed.password) return { target: url, headers: {} }
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`
  parsed.username = ''
  parsed.password = ''
  return {
    target: parsed.toString(),
    headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
  }
}
