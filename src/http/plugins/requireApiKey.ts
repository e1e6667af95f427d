// The API-key check as a route hook. It runs before schema validation, so a caller without a key
// learns nothing about what the gateway would think of the body.
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify'
import type { ApiKeyCheck } from '../../auth/createApiKeyCheck.ts'
import { identifyBearerKey } from '../../auth/identifyBearerKey.ts'
import { UnauthorizedError } from '../../errors/unauthorizedError.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Short id of the API key the request came with, once checked. */
    apiKeyId: string | undefined
  }
}

/**
 * With `required`, a request without a valid key is refused. Without it, a request may come
 * without a key, but a key it does present must be valid (it then counts as that key's client).
 */
export function requireApiKey(
  check: ApiKeyCheck,
  {
    required,
    unlessPaying,
  }: { required: boolean /** A request this answers true for may come without a key: it pays with x402. */; unlessPaying?: ((request: FastifyRequest) => boolean) | undefined },
): preValidationAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization
    if (header === undefined && (!required || unlessPaying?.(request))) return
    const keyId = identifyBearerKey(check, header)
    if (!keyId) throw new UnauthorizedError(header !== undefined)
    request.apiKeyId = keyId
  }
}
