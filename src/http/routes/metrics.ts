// GET /metrics: the Prometheus text exposition of the gateway's registry. Never rate-limited (the
// limit covers /intents/* only); with a token configured, only `Authorization: Bearer <token>`
// reads it, compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { Metrics } from '../../metrics/createMetrics.ts'
import { Status } from '../../status/statusCodes.ts'
import { commonResponseHeaders, metricsTokenScheme, outcomeResponses, problemSchema } from '../schemas/httpSchemas.ts'

export function registerMetricsRoute(
  app: FastifyInstance,
  { metrics, token }: { metrics: Metrics; token?: string | undefined },
) {
  const expected = token ? digest(token) : undefined
  const schema = {
    operationId: 'getMetrics',
    tags: ['operations'],
    summary:
      "The Prometheus text exposition of the gateway's metrics (requests, RPC calls, executions, payments, relayer balance, journal backlog)",
    // Open unless METRICS_TOKEN is set; then that token, not an API key.
    security: expected ? [{ [metricsTokenScheme]: [] }] : [],
    response: {
      200: {
        description: 'the metrics, Prometheus text format 0.0.4',
        headers: commonResponseHeaders,
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      // On the metrics port's own server no shared schemas are registered: the problem inline there.
      ...(expected
        ? app.getSchema('Problem')
          ? outcomeResponses([401])
          : {
              401: {
                description: 'the metrics token is missing or wrong',
                headers: commonResponseHeaders,
                content: { 'application/problem+json': { schema: problemSchema } },
              },
            }
        : {}),
    },
  }
  app.get('/metrics', { schema }, async (request, reply) => {
    if (expected) {
      const header = request.headers.authorization
      const presented = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined
      // Hashes of equal length, so the comparison time says nothing of the token.
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        throw new GatewayError(
          presented === undefined ? 'A metrics token is required' : 'The metrics token is not valid',
          {
            code: 'UNAUTHORIZED',
            status: Status.UNAUTHORIZED,
            details: 'send METRICS_TOKEN as Authorization: Bearer <token>',
            headers: {
              'www-authenticate':
                presented === undefined
                  ? 'Bearer realm="intent-gateway-metrics"'
                  : 'Bearer realm="intent-gateway-metrics", error="invalid_token"',
            },
          },
        )
      }
    }
    const text = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).send(text)
  })
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
