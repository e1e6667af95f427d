// A small HTTP server that serves only GET /metrics, for METRICS_PORT: Prometheus scrapes a port
// that is not exposed with the API (and the API then has no /metrics). Same answers as the API's
// route: the token when configured, problem bodies and the common headers on everything else.

import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify'
import type { Logger } from 'pino'
import type { ChainRegistry } from '../intents/createChainRegistry.ts'
import type { Metrics } from '../metrics/createMetrics.ts'
import { genRequestId } from './plugins/genRequestId.ts'
import './gatewayContext.ts'
import { createHttpServer } from './createHttpServer.ts'
import { registerCommonHeaders } from './plugins/commonHeaders.ts'
import { registerErrorHandler } from './plugins/errorHandler.ts'
import { registerMethodNotAllowed } from './plugins/methodNotAllowed.ts'
import { registerMetricsRoute } from './routes/metrics.ts'

export type CreateMetricsServerParameters = {
  metrics: Metrics
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  token?: string | undefined
  /** For the common headers (the default chain). */
  registry: ChainRegistry
  logger: Logger
  /** Bounds against slow and idle clients, as on the API's server. */
  requestTimeoutMs?: number | undefined
  idleTimeoutMs?: number | undefined
  maxConnections?: number | undefined
}

/** The server, not listening yet: `await server.listen({ host, port })`, `await server.close()`. */
export function createMetricsServer({
  metrics,
  token,
  registry,
  logger,
  requestTimeoutMs = 30_000,
  idleTimeoutMs = 5_000,
  maxConnections = 64,
}: CreateMetricsServerParameters): FastifyInstance {
  const app = Fastify({
    serverFactory: (handler) => createHttpServer({ handler, requestTimeoutMs, idleTimeoutMs, maxConnections, logger }),
    loggerInstance: logger.child({ module: 'metrics-server' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Nothing here reads a body.
    bodyLimit: 1024,
    // The same request ids as the API's port (X-Request-Id taken when valid, else made).
    genReqId: genRequestId,
    requestIdHeader: false,
  })
  registerCommonHeaders(app, registry)
  registerErrorHandler(app)
  registerMetricsRoute(app, { metrics, token })
  registerMethodNotAllowed(app, { '/metrics': ['GET'] })
  return app
}
