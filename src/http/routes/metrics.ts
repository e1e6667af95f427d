// GET /metrics: the Prometheus text exposition of the gateway's registry. Never rate-limited (the
// limit covers /intents/* only); with a token configured, only `Authorization: Bearer <token>`
// reads it, compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { Metrics } from '../../metrics/createMetrics.ts'
import { Status } from '../../status/statusCodes.ts'

export function registerMetricsRoute(app: FastifyInstance, { metrics, token }: { metrics: Metrics; token?: string | undefined }) {
  const expected = token ? digest(token) : undefined
  app.get('/metrics', async (request, reply) => {
    if (expected) {
      const header = request.headers.authorization
      const presented = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined
      // Hashes of equal length, so the comparison time says nothing of the token.
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        throw new GatewayError(presented === undefined ? 'A metrics token is required' : 'The metrics token is not valid', {
          code: 'UNAUTHORIZED',
          status: Status.UNAUTHORIZED,
          details: 'send METRICS_TOKEN as Authorization: Bearer <token>',
          headers: { 'www-authenticate': presented === undefined ? 'Bearer realm="intent-gateway-metrics"' : 'Bearer realm="intent-gateway-metrics", error="invalid_token"' },
        })
      }
    }
    const text = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).send(text)
  })
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
