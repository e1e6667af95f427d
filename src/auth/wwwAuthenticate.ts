// The `WWW-Authenticate: Bearer` challenge of RFC 6750 §3, with the protected resource metadata's
// URL (RFC 9728 §5.1) so that an OAuth client learns where to get a token from the answer alone.
import type { OAuthRefusal } from './createOAuthVerifier.ts'

export type WwwAuthenticateParameters = {
  /** RFC 9728 §5.1: where the protected resource metadata is (config.oauth.resourceMetadataUrl). */
  resourceMetadataUrl: string
  /** Why the presented credential was refused; none when the request came without one (RFC 6750 §3.1: no error code then). */
  refusal?: Pick<OAuthRefusal, 'error' | 'description' | 'scope'> | undefined
  /** The scopes the request needs, when not already named by an insufficient_scope refusal. */
  scope?: string | undefined
}

export function wwwAuthenticate({ resourceMetadataUrl, refusal, scope }: WwwAuthenticateParameters): string {
  const params: [string, string][] = [['realm', 'intent-gateway']]
  if (refusal) {
    params.push(['error', refusal.error])
    params.push(['error_description', refusal.description])
  }
  const needed = refusal?.scope ?? scope
  if (needed !== undefined) params.push(['scope', needed])
  params.push(['resource_metadata', resourceMetadataUrl])
  return `Bearer ${params.map(([name, value]) => `${name}="${quotable(value)}"`).join(', ')}`
}

/**
 * RFC 6750 §3: the values allow %x20-21 / %x23-5B / %x5D-7E only: no quote, no backslash, nothing
 * outside printable ASCII. Anything else becomes a space, so no value can end the quoted string
 * or add a parameter (or a header: CR and LF are outside that set too).
 */
function quotable(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, ' ')
}
