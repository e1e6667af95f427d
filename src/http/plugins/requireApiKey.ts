// The credential check as a route hook: an API key, or with OAuth on an access token that grants
// the route's scope. It runs before schema validation, so a caller without a credential learns
// nothing about what the gateway would think of the body.
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify'
import { checkScope } from '../../auth/checkScope.ts'
import type { RequestAuthenticator } from '../../auth/createRequestAuthenticator.ts'
import type { OAuthScope } from '../../auth/oauthScopes.ts'
import { toOAuthError } from '../../auth/toOAuthError.ts'
import { UnauthorizedError } from '../../errors/unauthorizedError.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who the request came from, once checked: an API key's short id, or `oauth:<iss>#<sub>` for
     * an OAuth caller. Rate limits, standing, budgets, the journal's owner and webhooks key on it.
     */
    apiKeyId: string | undefined
  }
}

export type RequireApiKeyOptions = {
  /** One authentication per request, shared with the rate limit (auth/createRequestAuthenticator.ts). */
  authenticate: RequestAuthenticator
  /** With OAuth on: where the protected resource metadata is, named in every challenge (RFC 9728 §5.1). */
  resourceMetadataUrl?: string | undefined
  /** Without a credential, refused (else the request goes on anonymous). */
  required: boolean
  /** A request this answers true for may come without a credential: it pays with x402. */
  unlessPaying?: ((request: FastifyRequest) => boolean) | undefined
  /** What an OAuth caller's token must grant here (an API key may do everything); none: any valid token. */
  scope?: OAuthScope | undefined
  /** Named in the challenge of a request without a credential when `scope` is not (the scopes worth asking a token for). */
  challengeScope?: string | undefined
}

/**
 * With `required`, a request without a valid credential is refused. Without it, a request may
 * come without one, but a credential it does present must be valid (it then counts as that
 * caller) and, for an OAuth token, grant the route's scope.
 */
export function requireApiKey({
  authenticate,
  resourceMetadataUrl,
  required,
  unlessPaying,
  scope,
  challengeScope,
}: RequireApiKeyOptions): preValidationAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization
    if (header === undefined && (!required || unlessPaying?.(request))) return
    // An issuer that cannot be reached throws (503 0x40, Retry-After): the token may be good.
    const result = await authenticate(request)
    if (!result.ok) {
      // Without OAuth, the API-key answers as they always were.
      if (resourceMetadataUrl === undefined) throw new UnauthorizedError(header !== undefined)
      throw toOAuthError({ refusal: result.refusal, resourceMetadataUrl, scope: scope ?? challengeScope })
    }
    const refused = scope && checkScope(result.caller, scope)
    if (refused) throw toOAuthError({ refusal: refused, resourceMetadataUrl: resourceMetadataUrl!, scope })
    request.apiKeyId = result.caller.id
  }
}
