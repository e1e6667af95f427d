// The composition root's last step: the HTTP app (app.ts) from the configuration, the runtimes
// (whose examples the API's documentation shows) and the parts started before it, and, with
// METRICS_PORT, the server of GET /metrics alone (not listening yet).
import type { FastifyInstance } from 'fastify'
import { type AppParts, buildApp } from './app.ts'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import { createMetricsServer } from './http/createMetricsServer.ts'
import type { Metrics } from './metrics/createMetrics.ts'
import { runtimes } from './runtimes.ts'

export type GatewayApp = { app: FastifyInstance; metricsServer: FastifyInstance | undefined }

export function buildGatewayApp(
  config: GatewayConfig,
  parts: Omit<AppParts, 'runtimes'> & { metrics: Metrics },
): GatewayApp {
  const { ops, guard, redis } = parts
  const app = buildApp(config, {
    ...parts,
    // The document and the MCP tools show the runtimes' examples.
    runtimes,
    guard: ops && guard ? ops.observe(guard) : guard,
    instance: {
      id: config.storage.instanceId,
      rateLimits: config.rateLimit.max === 0 ? 'off' : redis ? 'redis' : 'memory',
    },
  })
  const { enabled, port, token } = config.interfaces.metrics
  const metricsServer =
    enabled && port !== undefined
      ? createMetricsServer({
          metrics: parts.metrics,
          token,
          registry: parts.registry,
          logger: parts.logger,
          requestTimeoutMs: config.server.requestTimeoutMs,
          idleTimeoutMs: config.server.idleTimeoutMs,
        })
      : undefined
  return { app, metricsServer }
}
