// Checks an OAuth 2.1 access token (a JWT, RFC 9068) for the gateway as a resource server: signed
// by the configured issuer with a key of its published key set, meant for this gateway, unexpired.
// A refusal is a value (the RFC 6750 error and its HTTP status); an authorization server that
// cannot be reached is an error (AuthorizationServerUnreachableError, 503). The token is never
// logged nor echoed: descriptions name the check that failed, never the claims' values.
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose'
import type { Logger } from 'pino'
import type { OAuthConfig } from '../config/oauthConfig.ts'
import { AuthorizationServerUnreachableError } from './authorizationServerUnreachableError.ts'
import { discoverJwksUrl } from './discoverJwksUrl.ts'
import { type OAuthScope, oauthScopes } from './oauthScopes.ts'

export type OAuthIdentity = {
  /** `oauth:<iss>#<sub>`: what counts this caller's limits, standing, budgets and executions. */
  id: string
  issuer: string
  subject: string
  /** The gateway's scopes the token grants (others it may carry are not ours and are dropped). */
  scopes: OAuthScope[]
}

export type OAuthRefusal = {
  ok: false
  httpStatus: 400 | 401 | 403
  /** RFC 6750 §3.1. */
  error: 'invalid_request' | 'invalid_token' | 'insufficient_scope'
  /** For people: which check failed; never a value taken from the token. */
  description: string
  /** With insufficient_scope: the scope the request needs. */
  scope?: OAuthScope | undefined
}

export type OAuthVerification = { ok: true; identity: OAuthIdentity } | OAuthRefusal

export type OAuthVerifier = {
  /** Checks one bearer token (the header's credential, without `Bearer `). */
  verify(token: string): Promise<OAuthVerification>
  readonly issuer: string
  readonly audience: string
}

export type CreateOAuthVerifierParameters = {
  config: OAuthConfig
  logger?: Logger | undefined
  /** How long after a key set fetch an unknown `kid` may fetch it again (default 30 s: a forged kid cannot make us hammer the issuer). */
  cooldownMs?: number | undefined
  /** How long a fetched key set is used before it is fetched again anyway (default 10 min). */
  cacheMaxAgeMs?: number | undefined
  /** Per request to the authorization server (default 5 s). */
  timeoutMs?: number | undefined
}

/** RFC 9068 §4 and OAuth 2.1: asymmetric signatures only; never `none`, never a shared secret. */
export const acceptedAlgorithms = ['RS256', 'ES256', 'EdDSA']
/** Clock skew forgiven on `exp` and `nbf`. */
export const clockToleranceSeconds = 60
/** Larger than any access token we expect; refused before it is parsed. */
const maxTokenLength = 16_384
const maxSubjectLength = 255

export function createOAuthVerifier({
  config,
  logger,
  cooldownMs = 30_000,
  cacheMaxAgeMs = 600_000,
  timeoutMs = 5_000,
}: CreateOAuthVerifierParameters): OAuthVerifier {
  const log = logger?.child({ module: 'oauth' })
  let keySet: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined
  // Discovered once; a failed discovery is forgotten, so the next request tries again.
  const getKeySet = () => {
    keySet ??= (
      config.jwksUrl !== undefined
        ? Promise.resolve(config.jwksUrl)
        : discoverJwksUrl({ issuer: config.issuer, timeoutMs })
    ).then(
      (url) => {
        log?.info({ jwksUrl: url }, 'OAuth: verifying access tokens with the issuer key set')
        // Keys come only from here: a token's jku, x5u or jwk header is never read.
        return createRemoteJWKSet(new URL(url), {
          cooldownDuration: cooldownMs,
          cacheMaxAge: cacheMaxAgeMs,
          timeoutDuration: timeoutMs,
        })
      },
      (err: unknown) => {
        keySet = undefined
        throw err
      },
    )
    return keySet
  }

  async function verify(token: string): Promise<OAuthVerification> {
    if (token.length > maxTokenLength || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token))
      return invalidToken('not a signed JWT access token (three base64url parts)')
    const keys = await getKeySet()
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, keys, {
        algorithms: acceptedAlgorithms,
        // RFC 9068 §4: an ID token (typ JWT) or any other JWT is not an access token.
        typ: 'at+jwt',
        issuer: config.issuer,
        audience: config.audience,
        clockTolerance: clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      }))
    } catch (err) {
      const refusal = toRefusal(err)
      if (refusal) return refusal
      log?.warn(
        { err: { name: (err as Error).name, code: (err as { code?: unknown }).code, message: (err as Error).message } },
        'OAuth: the issuer key set could not be read',
      )
      throw new AuthorizationServerUnreachableError("the issuer's key set could not be read; try again shortly", {
        cause: err,
      })
    }
    const subject = payload.sub
    if (typeof subject !== 'string' || subject === '') return invalidToken('the sub claim must be a non-empty string')
    // The identity becomes a rate-limit key, a journal column and a log field: bounded.
    if (subject.length > maxSubjectLength)
      return invalidToken(`the sub claim is longer than ${maxSubjectLength} characters`)
    const scope = payload.scope
    if (scope !== undefined && typeof scope !== 'string')
      return invalidToken('the scope claim must be a space-separated string (RFC 9068 §2.2.3)')
    const granted = new Set((scope ?? '').split(' '))
    const scopes = oauthScopes.filter((s) => granted.has(s))
    // payload.iss equals config.issuer here: jwtVerify compared them.
    return { ok: true, identity: { id: `oauth:${config.issuer}#${subject}`, issuer: config.issuer, subject, scopes } }
  }

  return { verify, issuer: config.issuer, audience: config.audience }
}

function invalidToken(description: string): OAuthRefusal {
  return { ok: false, httpStatus: 401, error: 'invalid_token', description }
}

/** A jose error about the token itself → its refusal; undefined for a failure to read the key set. */
function toRefusal(err: unknown): OAuthRefusal | undefined {
  if (err instanceof errors.JWTExpired) return invalidToken('the token has expired')
  if (err instanceof errors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case 'typ':
        return invalidToken('not an access token: its typ header must be at+jwt (RFC 9068); ID tokens are refused')
      case 'iss':
        return invalidToken('the token was not issued by the configured issuer')
      case 'aud':
        return invalidToken(
          "the token's audience is not this gateway (ask for it with resource set to this gateway's URL, RFC 8707)",
        )
      case 'nbf':
        return invalidToken('the token is not valid yet')
      default:
        return invalidToken(`the ${err.claim} claim is missing or not valid`)
    }
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return invalidToken(`the token's signature algorithm is not accepted (${acceptedAlgorithms.join(', ')})`)
  if (err instanceof errors.JWKSNoMatchingKey)
    return invalidToken("the token is not signed with a key of the issuer's key set")
  if (err instanceof errors.JWKSMultipleMatchingKeys)
    return invalidToken("the token names no key (kid) and the issuer's key set has several")
  if (err instanceof errors.JWSSignatureVerificationFailed) return invalidToken('the token signature is not valid')
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid || err instanceof errors.JOSENotSupported)
    return invalidToken('the token is malformed')
  return undefined
}
