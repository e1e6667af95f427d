// Per-client rate limit on the intent routes and /mcp: a client is its API key or OAuth identity
// when it sent a valid one, else its address. Over the limit: 429, 0xF6, Retry-After, the common headers. The MCP tools count
// their calls in the same budget through the function registerRateLimit returns.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import type { RequestAuthenticator } from '../../auth/createRequestAuthenticator.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { Status } from '../../status/statusCodes.ts'
import { toClientAddressKey } from '../toClientAddressKey.ts'

export type RateLimitOptions = {
  max: number
  windowMs: number
  /** Names the caller of a request with a credential (API keys, OAuth); undefined: every client is its address. */
  authenticate: RequestAuthenticator | undefined
  /** Requests the gateway sends its own routes for a client whose call was counted already (the MCP tools, see CountRequest). */
  isInProcess?: ((request: FastifyRequest) => boolean) | undefined
  /** Counts in Redis, shared by every instance (REDIS_URL); default: this process's memory. */
  redis?: Redis | undefined
  /** What the counts' keys in Redis start with (REDIS_PREFIX); default `intent-gateway:`. */
  redisPrefix?: string | undefined
}

/**
 * Counts one more request of the client that sent `request` (an /mcp request: one of its tool
 * calls) in the same budget as its HTTP requests: the refusal HTTP answers once over the limit,
 * else undefined.
 */
export type CountRequest = (request: FastifyRequest) => Promise<GatewayError | undefined>

/** The routes the limit covers: the intent routes, and /mcp, which reaches them. */
const limited = (url: string | undefined) => url !== undefined && (url.startsWith('/intents/') || url === '/mcp')

export function registerRateLimit(
  app: FastifyInstance,
  { max, windowMs, authenticate, isInProcess, redis, redisPrefix = 'intent-gateway:' }: RateLimitOptions,
): CountRequest {
  const tooMany = (ttlMs: number) => {
    const seconds = Math.max(1, Math.ceil(ttlMs / 1000))
    return new GatewayError('Too many requests', {
      code: 'RATE_LIMITED',
      status: Status.RATE_LIMITED,
      details: `at most ${max} requests per ${windowMs / 1000} s per client; retry after ${seconds} s`,
      headers: { 'retry-after': String(seconds) },
    })
  }
  app.register(rateLimit, {
    global: true,
    // Decided on the route the router matched, never on the raw URL: the router decodes the path
    // (`/%69ntents/validate` is `/intents/validate`). Health, status codes and chains stay
    // unlimited: probes must never be turned away. An MCP tool's call of an intent route is
    // counted by the MCP server as the tool call that made it (CountRequest), never twice.
    allowList: (request) => !limited(request.routeOptions.url) || (isInProcess?.(request) ?? false),
    max,
    timeWindow: windowMs,
    // Shared by the instances through Redis. Redis down: the limit is skipped (fail open, logged by
    // the client) rather than the gateway refusing every request; it holds again once Redis is back.
    ...(redis ? { redis, nameSpace: `${redisPrefix}rate-limit:`, skipOnError: true } : {}),
    // First thing after routing, before the API-key check and the body: a request refused for a
    // wrong key counts like any other (guessing keys is throttled), and a limited client's body
    // is never read. A valid key or access token is its own client, whatever address it comes
    // from (the token's check is done once, here, and reused by the route's); an invalid one, or
    // an issuer that cannot be reached, counts against the address.
    hook: 'onRequest',
    keyGenerator: async (request) => {
      const address = `ip:${toClientAddressKey(request.ip)}`
      // Unlimited routes and in-process calls (counted as their tool call) are let through below: no token checked for them here.
      if (
        !authenticate ||
        request.headers.authorization === undefined ||
        !limited(request.routeOptions.url) ||
        isInProcess?.(request)
      )
        return address
      const result = await authenticate(request).catch(() => undefined)
      return result?.ok ? `key:${result.caller.id}` : address
    },
    errorResponseBuilder: (_request, context) => tooMany(context.ttl),
  })

  // The plugin's own counter (same store, keys and window), decorated once the plugin has loaded:
  // looked up at the first count, which is always later, during a request.
  let count: ReturnType<FastifyInstance['createRateLimit']> | undefined
  return async (request) => {
    count ??= app.createRateLimit()
    const counted = await count(request)
    return !counted.isAllowed && counted.isExceeded ? tooMany(counted.ttl) : undefined
  }
}
