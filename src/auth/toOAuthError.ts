// A refused bearer credential as the error the HTTP layer answers: 401 (0xE4) invalid_token, 403
// (0x15, needs your permission) insufficient_scope, 400 (0xA0) invalid_request naming the
// Authorization header; each with the RFC 6750 challenge and the resource metadata's URL.
import { GatewayError } from '../errors/gatewayError.ts'
import { InputError } from '../errors/inputError.ts'
import { Status } from '../status/statusCodes.ts'
import type { OAuthRefusal } from './createOAuthVerifier.ts'
import { wwwAuthenticate } from './wwwAuthenticate.ts'

/** ERC-1066 0x15, "needs your permission" (403): the credential is good, its grant too small. */
const needsPermission = 0x15

export type ToOAuthErrorParameters = {
  /** undefined: no credential was presented. */
  refusal: OAuthRefusal | undefined
  resourceMetadataUrl: string
  /** Named in the challenge of a request that came without a credential (the scope its route needs). */
  scope?: string | undefined
}

export function toOAuthError({ refusal, resourceMetadataUrl, scope }: ToOAuthErrorParameters): GatewayError {
  const headers = { 'www-authenticate': wwwAuthenticate({ resourceMetadataUrl, refusal, scope }) }
  if (refusal === undefined)
    return new GatewayError('A credential is required', {
      code: 'UNAUTHORIZED',
      status: Status.UNAUTHORIZED,
      details:
        'send an API key or an OAuth access token as Authorization: Bearer <token>; the WWW-Authenticate header names where to get a token',
      headers,
    })
  if (refusal.error === 'invalid_request')
    return new InputError('The Authorization header is not valid', {
      errors: [{ field: 'Authorization', message: refusal.description }],
      headers,
    })
  if (refusal.error === 'insufficient_scope')
    return new GatewayError('The access token does not allow this request', {
      code: 'INSUFFICIENT_SCOPE',
      status: needsPermission,
      details: refusal.description,
      headers,
    })
  return new GatewayError('The bearer token is not valid', {
    code: 'UNAUTHORIZED',
    status: Status.UNAUTHORIZED,
    details: refusal.description,
    headers,
  })
}
