// The settings of the OAuth 2.1 resource server (auth/createOAuthVerifier.ts): which
// authorization server's access tokens are accepted, for which audience, and where its keys are.
// Reads its own variables and reports its own problems, for loadConfig to compose.

export type OAuthConfig = {
  /** OAUTH_ISSUER: the authorization server's issuer identifier, compared exactly with a token's `iss`. */
  issuer: string
  /**
   * OAUTH_AUDIENCE (default: PUBLIC_URL): what a token's `aud` must contain, and the `resource`
   * of the protected resource metadata (RFC 9728), which clients ask tokens for (RFC 8707).
   */
  audience: string
  /** OAUTH_JWKS_URL: the issuer's key set; else its `jwks_uri`, discovered from its metadata (RFC 8414, then OpenID). */
  jwksUrl: string | undefined
  /** Where the protected resource metadata is served, derived from the audience as RFC 9728 §3.1 says. */
  resourceMetadataUrl: string
}

export type OAuthConfigResult = { value: OAuthConfig | undefined; problems: string[] }

export function readOAuthConfig(
  env: Record<string, string | undefined>,
  {
    production,
    publicUrl,
  }: {
    production: boolean /** PUBLIC_URL as the gateway read it: the audience's default. */
    publicUrl: string | undefined
  },
): OAuthConfigResult {
  const problems: string[] = []
  const issuer = env.OAUTH_ISSUER?.trim() || undefined
  const audienceSetting = env.OAUTH_AUDIENCE?.trim() || undefined
  const jwksSetting = env.OAUTH_JWKS_URL?.trim() || undefined
  if (issuer === undefined) {
    for (const name of ['OAUTH_AUDIENCE', 'OAUTH_JWKS_URL'])
      if (env[name]?.trim())
        problems.push(
          `${name}: is set but OAUTH_ISSUER is not (OAuth access tokens are accepted only from a configured issuer)`,
        )
    return { value: undefined, problems }
  }
  // RFC 8414 §2: an issuer is an https URL with no query or fragment.
  checkUrl(issuer, 'OAUTH_ISSUER', production, problems, { noQuery: true })
  const audience = audienceSetting ?? publicUrl?.trim()
  if (audience === undefined)
    problems.push(
      'OAUTH_AUDIENCE: required with OAUTH_ISSUER when PUBLIC_URL is not set (the URL clients reach the gateway at)',
    )
  // RFC 8707 §2: a resource is an absolute URI without a fragment; RFC 9728 makes it an https URL.
  else
    checkUrl(
      audience,
      audienceSetting !== undefined ? 'OAUTH_AUDIENCE' : 'PUBLIC_URL (the default of OAUTH_AUDIENCE)',
      production,
      problems,
      { noQuery: true },
    )
  if (jwksSetting !== undefined) checkUrl(jwksSetting, 'OAUTH_JWKS_URL', production, problems, { noQuery: false })
  if (problems.length > 0 || audience === undefined) return { value: undefined, problems }
  return {
    value: { issuer, audience, jwksUrl: jwksSetting, resourceMetadataUrl: toResourceMetadataUrl(audience) },
    problems,
  }
}

/** RFC 9728 §3.1: the well-known segment goes between the host and the resource's path (none for a bare origin). */
export function toResourceMetadataUrl(resource: string): string {
  const url = new URL(resource)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
  return `${url.origin}/.well-known/oauth-protected-resource${path}`
}

function checkUrl(
  raw: string,
  name: string,
  production: boolean,
  problems: string[],
  { noQuery }: { noQuery: boolean },
): void {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    problems.push(`${name}: not a URL (an absolute https URL)`)
    return
  }
  // Only the scheme is named: the rest of a URL may hold credentials.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !production))
    problems.push(
      `${name}: must be an https URL${production ? ' when NODE_ENV=production' : ' (http only outside production)'}, not ${url.protocol}`,
    )
  else if (url.username !== '' || url.password !== '')
    problems.push(`${name}: must not hold credentials (its value is not shown)`)
  else if (url.hash !== '' || raw.includes('#')) problems.push(`${name}: must not have a fragment`)
  else if (noQuery && (url.search !== '' || raw.includes('?'))) problems.push(`${name}: must not have a query`)
}
