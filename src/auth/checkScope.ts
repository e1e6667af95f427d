// Whether a caller may do what a route does: an API key may do everything a key may (as before);
// an OAuth caller needs the route's scope, else 403 insufficient_scope naming it (RFC 6750 §3.1).
import type { BearerCaller } from './authenticateBearer.ts'
import type { OAuthRefusal } from './createOAuthVerifier.ts'
import { hasScope } from './hasScope.ts'
import type { OAuthScope } from './oauthScopes.ts'

export function checkScope(caller: BearerCaller, scope: OAuthScope): OAuthRefusal | undefined {
  if (caller.kind === 'apiKey' || hasScope(caller.identity, scope)) return undefined
  return {
    ok: false,
    httpStatus: 403,
    error: 'insufficient_scope',
    description: `the token does not grant the ${scope} scope this request needs`,
    scope,
  }
}
