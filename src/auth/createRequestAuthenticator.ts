// One authentication per request, shared by every hook that asks (the rate limit's key at
// onRequest, the route's credential check at preValidation): an access token's signature is
// checked once, and both see the same caller.
import {
  type AuthenticateBearerParameters,
  authenticateBearer,
  type BearerAuthentication,
} from './authenticateBearer.ts'

/** What a request must offer: its headers (a Fastify request, or anything shaped like one). */
export type AuthenticatedRequest = { headers: { authorization?: string | undefined } }

export type RequestAuthenticator = (request: AuthenticatedRequest) => Promise<BearerAuthentication>

export function createRequestAuthenticator({
  apiKeys,
  oauth,
}: Omit<AuthenticateBearerParameters, 'header'>): RequestAuthenticator {
  // Keyed by the request object itself: forgotten with it.
  const seen = new WeakMap<AuthenticatedRequest, Promise<BearerAuthentication>>()
  return (request) => {
    let result = seen.get(request)
    if (result === undefined) {
      result = authenticateBearer({ header: request.headers.authorization, apiKeys, oauth })
      // A failure (the authorization server unreachable) is the caller's to handle, each time it asks.
      result.catch(() => {})
      seen.set(request, result)
    }
    return result
  }
}
