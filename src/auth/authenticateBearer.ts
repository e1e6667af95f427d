// Who an `Authorization: Bearer` credential names: a configured API key (checked first, as
// before), else, when an OAuth issuer is configured, the subject of a valid access token. Either
// way one `id` comes out, which the HTTP layer carries where the API key's id went: rate limits,
// standing, budgets, the journal's owner of an execution.
import type { ApiKeyCheck } from './createApiKeyCheck.ts'
import type { OAuthIdentity, OAuthRefusal, OAuthVerifier } from './createOAuthVerifier.ts'

export type BearerCaller =
  /** `id`: the key's short id (8 hex digits), as before. */
  | { kind: 'apiKey'; id: string }
  /** `id`: `oauth:<iss>#<sub>`. */
  | { kind: 'oauth'; id: string; identity: OAuthIdentity }

export type BearerAuthentication =
  | { ok: true; caller: BearerCaller }
  /** `refusal` undefined: no credential was presented (RFC 6750 §3.1: the challenge then names no error). */
  | { ok: false; refusal: OAuthRefusal | undefined }

export type AuthenticateBearerParameters = {
  /** The Authorization header as received. */
  header: string | undefined
  apiKeys: ApiKeyCheck
  /** Set when OAUTH_ISSUER is: without it, a credential that is no API key is refused as before. */
  oauth?: OAuthVerifier | undefined
}

export async function authenticateBearer({
  header,
  apiKeys,
  oauth,
}: AuthenticateBearerParameters): Promise<BearerAuthentication> {
  if (header === undefined) return { ok: false, refusal: undefined }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) {
    return {
      ok: false,
      refusal: oauth
        ? {
            ok: false,
            httpStatus: 400,
            error: 'invalid_request',
            description: 'the Authorization header must be Bearer followed by one token (RFC 6750 §2.1)',
          }
        : {
            ok: false,
            httpStatus: 401,
            error: 'invalid_token',
            description: 'the bearer token matches no configured API key',
          },
    }
  }
  const token = match[1]!
  const keyId = apiKeys.identify(token)
  if (keyId !== undefined) return { ok: true, caller: { kind: 'apiKey', id: keyId } }
  if (!oauth)
    return {
      ok: false,
      refusal: {
        ok: false,
        httpStatus: 401,
        error: 'invalid_token',
        description: 'the bearer token matches no configured API key',
      },
    }
  const verified = await oauth.verify(token)
  if (!verified.ok) return { ok: false, refusal: verified }
  return { ok: true, caller: { kind: 'oauth', id: verified.identity.id, identity: verified.identity } }
}
