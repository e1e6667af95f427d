// Per-client rate limit on the intent routes: a client is its API key when it sent a valid one,
// else its address. Over the limit: 429, 0xF6, Retry-After, the common headers.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { GatewayError } from '../../errors/gatewayError.ts'
import { Status } from '../../status/statusCodes.ts'

export function registerRateLimit(app: FastifyInstance, { max, windowMs }: { max: number; windowMs: number }) {
  app.register(rateLimit, {
    global: true,
    // Health, status codes and chains stay unlimited: probes must never be turned away.
    allowList: (request) => !request.url.startsWith('/intents/'),
    max,
    timeWindow: windowMs,
    // After the API-key check, so that a key's limit follows the key across addresses.
    hook: 'preHandler',
    keyGenerator: (request) => (request.apiKeyId ? `key:${request.apiKeyId}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new GatewayError('Too many requests', {
        code: 'RATE_LIMITED',
        status: Status.RATE_LIMITED,
        details: `at most ${context.max} requests per ${windowMs / 1000} s per client; retry after ${context.after}`,
        headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      }),
  })
}
