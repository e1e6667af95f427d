// buildApp: the Fastify app with every route and plugin, built from ready-made parts so that
// tests build exactly what production runs.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify'
import type { Logger } from 'pino'
import type { ChainRegistry } from './chains/createChainRegistry.ts'
import type { IntentStore } from './intents/createIntentStore.ts'
import './http/gatewayContext.ts'
import { createApiKeyCheck } from './auth/createApiKeyCheck.ts'
import type { AuthConfig } from './config/loadConfig.ts'
import { requireApiKey } from './http/plugins/requireApiKey.ts'
import { registerCommonHeaders } from './http/plugins/commonHeaders.ts'
import { registerErrorHandler } from './http/plugins/errorHandler.ts'
import { registerJsonBody } from './http/plugins/jsonBody.ts'
import { registerMethodNotAllowed } from './http/plugins/methodNotAllowed.ts'
import { registerChainsRoutes } from './http/routes/chains/chains.ts'
import { registerHealthRoutes } from './http/routes/health/health.ts'
import { registerExecuteRoute } from './http/routes/intents/execute.ts'
import { registerGetIntentRoute } from './http/routes/intents/getIntent.ts'
import { registerValidateRoute } from './http/routes/intents/validate.ts'
import { registerStatusCodesRoute } from './http/routes/statusCodes.ts'

export type BuildAppParameters = {
  /** API keys; with none configured, every route is open. */
  auth?: AuthConfig | undefined
  registry: ChainRegistry
  store: IntentStore
  logger: Logger
  bodyLimit: number
  receiptTimeoutMs: number
}

export function buildApp({ registry, store, logger, bodyLimit, receiptTimeoutMs, auth }: BuildAppParameters): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One line per request from the onResponse hook below instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    // Strict schemas: never coerce "5" from 5, never drop unknown fields silently.
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false } },
    return503OnClosing: true,
  })

  registerCommonHeaders(app, registry)
  registerErrorHandler(app)
  registerJsonBody(app)

  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, status: reply.getHeader('x-erc1066-status'), key: request.apiKeyId, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    )
  })

  app.decorateRequest('apiKeyId', undefined)
  const keyCheck = auth && auth.keyHashes.length > 0 ? requireApiKey(createApiKeyCheck(auth.keyHashes)) : undefined
  registerValidateRoute(app, { registry, preValidation: auth?.requireForValidate ? keyCheck : undefined })
  registerExecuteRoute(app, { registry, store, receiptTimeoutMs, preValidation: keyCheck })
  registerGetIntentRoute(app, { registry, store })
  registerHealthRoutes(app, { registry })
  registerStatusCodesRoute(app)
  registerChainsRoutes(app, { registry })
  registerMethodNotAllowed(app, {
    '/intents/validate': ['POST'],
    '/intents/execute': ['POST'],
    '/intents/:intentHash': ['GET'],
    '/health': ['GET'],
    '/health/ready': ['GET'],
    '/status-codes': ['GET'],
    '/chains': ['GET'],
    '/chains/:chainId': ['GET'],
  })
  return app
}
