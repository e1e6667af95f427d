// Whether a verified OAuth caller was granted a scope (an API key caller is not asked: it may do everything a key may).
import type { OAuthIdentity } from './createOAuthVerifier.ts'
import type { OAuthScope } from './oauthScopes.ts'

export function hasScope(identity: Pick<OAuthIdentity, 'scopes'>, scope: OAuthScope): boolean {
  return identity.scopes.includes(scope)
}
