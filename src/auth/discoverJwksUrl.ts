// Finds an issuer's key set: its `jwks_uri` from its RFC 8414 authorization server metadata, else
// from its OpenID Connect discovery document. The document must name the issuer exactly (RFC 8414
// §3.3), so a metadata document served for another issuer never supplies our keys.
import { AuthorizationServerUnreachableError } from './authorizationServerUnreachableError.ts'

export type DiscoverJwksUrlParameters = {
  issuer: string
  /** Per request (default 5 s). */
  timeoutMs?: number | undefined
}

export async function discoverJwksUrl({ issuer, timeoutMs = 5_000 }: DiscoverJwksUrlParameters): Promise<string> {
  const tried: string[] = []
  for (const location of metadataLocations(issuer)) {
    let response: Response
    try {
      // No redirects: the issuer's own origin answers for it.
      response = await fetch(location, {
        headers: { accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (err) {
      tried.push(
        `${location}: ${(err as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : 'unreachable'}`,
      )
      continue
    }
    if (response.status !== 200) {
      await response.body?.cancel()
      tried.push(`${location}: HTTP ${response.status}`)
      continue
    }
    let metadata: { issuer?: unknown; jwks_uri?: unknown }
    try {
      metadata = (await response.json()) as typeof metadata
    } catch {
      tried.push(`${location}: not JSON`)
      continue
    }
    if (metadata?.issuer !== issuer) {
      tried.push(`${location}: names another issuer`)
      continue
    }
    const jwksUri = metadata.jwks_uri
    if (typeof jwksUri !== 'string' || !isAsSafeAs(jwksUri, issuer)) {
      tried.push(`${location}: jwks_uri missing, not a URL, or http under an https issuer`)
      continue
    }
    return jwksUri
  }
  throw new AuthorizationServerUnreachableError(
    `could not discover the issuer's key set (set OAUTH_JWKS_URL to skip discovery): ${tried.join('; ')}`,
  )
}

/** RFC 8414 §3.1 (the well-known segment before the issuer's path), then OpenID Connect Discovery §4 (after it). */
function metadataLocations(issuer: string): string[] {
  const url = new URL(issuer)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ]
}

/** The key set's URL is no less protected than the issuer's: https under an https issuer. */
function isAsSafeAs(candidate: string, issuer: string): boolean {
  try {
    const url = new URL(candidate)
    return url.protocol === 'https:' || (url.protocol === 'http:' && new URL(issuer).protocol === 'http:')
  } catch {
    return false
  }
}
