// Per-client rate limit on the intent routes and /mcp: a client is its API key when it sent a valid one,
// else its address. Over the limit: 429, 0xF6, Retry-After, the common headers.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import type { ApiKeyCheck } from '../../auth/createApiKeyCheck.ts'
import { identifyBearerKey } from '../../auth/identifyBearerKey.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { Status } from '../../status/statusCodes.ts'

export type RateLimitOptions = {
  max: number
  windowMs: number
  keys: ApiKeyCheck | undefined
  /** Requests the gateway sends its own routes for a client whose request was counted already (the MCP tools). */
  isInProcess?: ((request: FastifyRequest) => boolean) | undefined
  /** Counts in Redis, shared by every instance (REDIS_URL); default: this process's memory. */
  redis?: Redis | undefined
}

/** The routes the limit covers: the intent routes, and /mcp, which reaches them. */
const limited = (url: string | undefined) => url !== undefined && (url.startsWith('/intents/') || url === '/mcp')

export function registerRateLimit(app: FastifyInstance, { max, windowMs, keys, isInProcess, redis }: RateLimitOptions) {
  app.register(rateLimit, {
    global: true,
    // Decided on the route the router matched, never on the raw URL: the router decodes the path
    // (`/%69ntents/validate` is `/intents/validate`). Health, status codes and chains stay
    // unlimited: probes must never be turned away. An MCP tool's call of an intent route is
    // counted once, as the /mcp request that carried it.
    allowList: (request) => !limited(request.routeOptions.url) || (isInProcess?.(request) ?? false),
    max,
    timeWindow: windowMs,
    // Shared by the instances through Redis. Redis down: the limit is skipped (fail open, logged by
    // the client) rather than the gateway refusing every request; it holds again once Redis is back.
    ...(redis ? { redis, nameSpace: 'intent-gateway:rate-limit:', skipOnError: true } : {}),
    // First thing after routing, before the API-key check and the body: a request refused for a
    // wrong key counts like any other (guessing keys is throttled), and a limited client's body
    // is never read. A valid key is its own client, whatever address it comes from.
    hook: 'onRequest',
    keyGenerator: (request) => {
      const keyId = keys && identifyBearerKey(keys, request.headers.authorization)
      return keyId ? `key:${keyId}` : `ip:${request.ip}`
    },
    errorResponseBuilder: (_request, context) =>
      new GatewayError('Too many requests', {
        code: 'RATE_LIMITED',
        status: Status.RATE_LIMITED,
        details: `at most ${context.max} requests per ${windowMs / 1000} s per client; retry after ${context.after}`,
        headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      }),
  })
}
