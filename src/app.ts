// buildApp(config, parts): the Fastify app with every route and plugin, from the gateway's
// configuration (loadConfig's, defaults included) and the parts built at run time, so that
// tests build exactly what production runs.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, LogController } from 'fastify'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { InstanceDescription } from './http/routes/health/health.ts'
import type { ChainRegistry } from './intents/createChainRegistry.ts'
import type { Journal } from './ports/journal.ts'
import './http/gatewayContext.ts'
import cors from '@fastify/cors'
import { createApiKeyCheck } from './auth/createApiKeyCheck.ts'
import type { OAuthVerifier } from './auth/createOAuthVerifier.ts'
import { createRequestAuthenticator } from './auth/createRequestAuthenticator.ts'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import type { StorageConfig } from './config/storageConfig.ts'
import { createHttpServer } from './http/createHttpServer.ts'
import { registerCommonHeaders } from './http/plugins/commonHeaders.ts'
import { registerErrorHandler } from './http/plugins/errorHandler.ts'
import { createFrameworkErrorHandlers } from './http/plugins/frameworkErrors.ts'
import { gatewayVersion } from './http/plugins/gatewayVersion.ts'
import { genRequestId } from './http/plugins/genRequestId.ts'
import { registerHostCheck } from './http/plugins/hostCheck.ts'
import { registerJsonBody } from './http/plugins/jsonBody.ts'
import { registerRateLimit } from './http/plugins/rateLimit.ts'
import { requireApiKey } from './http/plugins/requireApiKey.ts'
import './http/publicBaseUrl.ts'
import type { OAuthScope } from './auth/oauthScopes.ts'
import type { PricedRoute } from './config/paymentsConfig.ts'
import { GatewayError } from './errors/gatewayError.ts'
import { createRouteCaller } from './http/createRouteCaller.ts'
import { createStreamSlots } from './http/createStreamSlots.ts'
import { createMethodNotAllowed } from './http/plugins/methodNotAllowed.ts'
import { registerOpenApi } from './http/plugins/openApi.ts'
import { requestChain } from './http/requestChain.ts'
import { registerGetAccountRoute } from './http/routes/accounts/getAccount.ts'
import { registerChainsRoutes } from './http/routes/chains/chains.ts'
import { registerDiscoveryResourcesRoute } from './http/routes/discovery/discoveryResources.ts'
import { registerHealthRoutes } from './http/routes/health/health.ts'
import { registerExecuteRoute } from './http/routes/intents/execute.ts'
import { registerGetIntentRoute } from './http/routes/intents/getIntent.ts'
import { registerIntentEventsRoute } from './http/routes/intents/intentEvents.ts'
import { registerValidateRoute } from './http/routes/intents/validate.ts'
import { registerMcpRoute } from './http/routes/mcp.ts'
import { registerMetricsRoute } from './http/routes/metrics.ts'
import { opsRoutePatterns } from './http/routes/ops/opsRoutes.ts'
import { registerOps } from './http/routes/ops/registerOps.ts'
import { registerStatusCodesRoute } from './http/routes/statusCodes.ts'
import { registerOAuthProtectedResourceRoute } from './http/routes/wellKnown/oauthProtectedResource.ts'
import { createApiDocs, type DocumentedRuntime } from './http/schemas/createApiDocs.ts'
import type { ExecutionGuard } from './intents/createExecutionGuard.ts'
import type { Metrics } from './metrics/createMetrics.ts'
import type { Ops } from './ops/createOps.ts'
import type { Payments } from './payments/createPayments.ts'
import { Status } from './status/statusCodes.ts'
import type { Tracing } from './tracing/createTracing.ts'

/** Longest path parameter the router takes (an intent hash is 66 characters, a CAIP-2 id at most 41); longer is 414. */
const maxParamLength = 100

/** What buildApp reads of the gateway's configuration (loadConfig's, whose fallbacks are the defaults: buildApp adds none). */
export type AppConfig = Pick<
  GatewayConfig,
  'production' | 'server' | 'execution' | 'auth' | 'oauth' | 'rateLimit' | 'interfaces'
> & {
  storage: Pick<StorageConfig, 'redisPrefix'>
}

/** The parts built at run time that the app serves with; each optional one is off without it. */
export type AppParts = {
  registry: ChainRegistry
  journal: Journal
  logger: Logger
  /**
   * The runtimes (the composition root's list): the OpenAPI document, the MCP tools and x402
   * discovery show their chain ids and worked examples, in their own terms.
   */
  runtimes: readonly DocumentedRuntime[]
  /**
   * OAuth 2.1 access tokens beside the API keys (an API key is checked first), when `config.oauth`
   * is set: the token check (auth/createOAuthVerifier.ts). Without it, a bearer token is an API key or nothing.
   */
  oauthVerifier?: OAuthVerifier | undefined
  /** With rate limits on (`config.rateLimit.max` > 0): counted there and shared by every instance. */
  redis?: Redis | undefined
  /** How /health names this instance and what it shares with others. */
  instance?: InstanceDescription | undefined
  /**
   * Recorded for every response and served at GET /metrics (on this app unless METRICS_PORT);
   * nothing recorded without it or with METRICS_ENABLED=false.
   */
  metrics?: Metrics | undefined
  /** The version the MCP handshake names (default: package.json's). */
  version?: string | undefined
  /** x402 prices of validate and execute (payments/createPayments.ts); without it both are free. */
  payments?: Payments | undefined
  /** Standing after reverts and spend budgets (intents/createExecutionGuard.ts); without it, nothing is counted. */
  guard?: ExecutionGuard | undefined
  /** OpenTelemetry (tracing/createTracing.ts): a span per request; without it, no hook at all. */
  tracing?: Pick<Tracing, 'instrument'> | undefined
  /** The operator's console and its switches (ops/createOps.ts); without it, no /ops and nothing paused. */
  ops?: Ops | undefined
}

export function buildApp(
  config: AppConfig,
  {
    registry,
    journal,
    logger,
    runtimes,
    oauthVerifier,
    redis,
    instance,
    version = gatewayVersion,
    payments,
    guard,
    tracing,
    ops,
    ...parts
  }: AppParts,
): FastifyInstance {
  const {
    bodyLimit,
    requestTimeoutMs,
    idleTimeoutMs,
    maxConnections,
    maxConnectionsPerClient,
    eventStreams,
    trustedProxies,
    corsOrigins,
    publicUrl,
  } = config.server
  const { production, auth } = config
  const { receiptTimeoutMs, idempotencyKeyTtlMs, requireSignedIntents } = config.execution
  const oauth = config.oauth && oauthVerifier ? { config: config.oauth, verifier: oauthVerifier } : undefined
  // METRICS_ENABLED=false: nothing recorded, no /metrics; with METRICS_PORT, served by createMetricsServer instead.
  const metrics = config.interfaces.metrics.enabled ? parts.metrics : undefined
  const serveMetrics = config.interfaces.metrics.port === undefined
  const metricsToken = config.interfaces.metrics.token
  const { mcp } = config.interfaces
  const rateLimit = { ...config.rateLimit, redis, redisPrefix: config.storage.redisPrefix }
  // Answers given before the routes and hooks (unreadable paths, unparsable requests) keep the
  // gateway's format too.
  const { frameworkErrors, clientErrorHandler } = createFrameworkErrorHandlers({ registry, maxParamLength })
  const app = Fastify({
    // Node's bounds against slow and idle clients, which Fastify leaves off (see createHttpServer).
    // The rest of a body over the limit is read (up to 4x the limit, at least 4 MiB) so that the 413 reaches its client.
    serverFactory: (handler) =>
      createHttpServer({
        handler,
        requestTimeoutMs,
        idleTimeoutMs,
        maxConnections,
        maxConnectionsPerClient,
        trustedProxies,
        lingerBytes: Math.max(4 * bodyLimit, 4 * 1024 * 1024),
        logger,
      }),
    // X-Forwarded-For is believed from the trusted proxies only; from anyone else, request.ip is the peer.
    trustProxy: trustedProxies.length > 0 ? [...trustedProxies] : false,
    loggerInstance: logger as FastifyBaseLogger,
    // One line per request from the onResponse hook below instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // X-Request-Id: the caller's when acceptable, else a fresh one; logged as reqId on every line.
    genReqId: genRequestId,
    requestIdHeader: false,
    bodyLimit,
    // Strict schemas: never coerce "5" from 5, never drop unknown fields silently.
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false } },
    routerOptions: { maxParamLength },
    frameworkErrors,
    clientErrorHandler,
    // Requests that arrive while closing are refused by the hook below, in the gateway's format.
    return503OnClosing: false,
  })

  registerCommonHeaders(app, registry)
  // Right after the common headers: its onSend reads the ERC-1066 status they set.
  tracing?.instrument(app)
  registerErrorHandler(app)
  // Requests that arrive during shutdown (on a connection still open) get a 503 problem.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done()
    reply.header('connection', 'close')
    done(
      new GatewayError('The gateway is shutting down', {
        code: 'SHUTTING_DOWN',
        status: Status.UNAVAILABLE,
        details: 'retry on another instance or after the restart',
        headers: { 'retry-after': '1' },
      }),
    )
  })
  // DNS rebinding: /mcp only for our Host, every route only for our origins (or none).
  app.decorate('publicUrl', publicUrl)
  registerHostCheck(app, {
    publicUrl,
    production,
    corsOrigins,
    hostRoutes: ops ? ['/mcp', ...opsRoutePatterns] : undefined,
  })
  registerJsonBody(app)
  // CORS only for the origins configured: without them, browsers on other origins get no
  // cross-origin access. (The security headers come with the common headers.)
  if (corsOrigins.length > 0) {
    app.register(cors, {
      origin: corsOrigins.includes('*') ? '*' : [...corsOrigins],
      methods: ['GET', 'POST'],
      allowedHeaders: ['content-type', 'authorization', 'x-chain-id', 'x-request-id', 'prefer'],
      // A browser client must be able to read the on-chain context the gateway answers with.
      exposedHeaders: [
        'x-request-id',
        'x-erc1066-status',
        'x-status-code',
        'x-intent-hash',
        'x-chain-type',
        'x-chain-id',
        'x-payment-required',
        'retry-after',
        'location',
        'preference-applied',
        'www-authenticate',
      ],
      maxAge: 600,
    })
  }

  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        status: reply.getHeader('x-erc1066-status'),
        key: request.apiKeyId,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    )
    // The matched route's pattern, never the raw URL; the code the client was answered with.
    metrics?.recordRequest({
      route: request.routeOptions.url,
      method: request.method,
      httpStatus: reply.statusCode,
      erc1066: reply.getHeader('x-erc1066-status'),
      seconds: reply.elapsedTime / 1000,
    })
    done()
  })

  app.decorateRequest('apiKeyId', undefined)
  app.decorateRequest('intentRequest', undefined)
  const keys = auth && auth.keyHashes.length > 0 ? createApiKeyCheck(auth.keyHashes) : undefined
  // Who a credential names: an API key, else (OAuth on) an access token's subject; checked once
  // per request, by the rate limit's key and the route's hook alike.
  const authenticate =
    keys || oauth
      ? createRequestAuthenticator({ apiKeys: keys ?? createApiKeyCheck([]), oauth: oauth?.verifier })
      : undefined
  const credential = (options: {
    required: boolean
    unlessPaying?: ((request: FastifyRequest) => boolean) | undefined
    scope?: OAuthScope
    challengeScope?: string
  }) =>
    authenticate && requireApiKey({ authenticate, resourceMetadataUrl: oauth?.config.resourceMetadataUrl, ...options })
  // The MCP tools call the intent routes in-process, as their client would.
  const caller = mcp.enabled ? createRouteCaller(app) : undefined
  const countRequest =
    rateLimit.max > 0
      ? registerRateLimit(app, { ...rateLimit, authenticate, isInProcess: caller?.isInProcess })
      : undefined
  // GET /openapi.json and GET /docs; before the routes, which it documents.
  const docs = createApiDocs(runtimes)
  registerOpenApi(app, { oauth: oauth && { issuer: oauth.config.issuer }, docs })
  // The console: its execute pause hook (app-level, before the intent routes' own hooks) and its routes.
  if (ops) registerOps(app, ops, { registry, journal, agentKeys: keys })
  // Registered as a plugin so that they load after the plugins above (rate limit), whose
  // route hooks only see routes added after them.
  const methodNotAllowed = createMethodNotAllowed()
  app.register(async (intents) => {
    methodNotAllowed.watch(intents)
    // With a price on the chosen chain, a request without a credential may come in: it pays instead.
    const pays = (route: PricedRoute) =>
      payments && ((request: FastifyRequest) => payments.priceFor(route, chainOf(registry, request)) !== undefined)
    // Validate: open unless REQUIRE_API_KEY_FOR_VALIDATE; execute: a credential or a payment.
    registerValidateRoute(intents, {
      registry,
      docs,
      payments,
      metrics,
      preValidation: credential({
        required: auth?.requireForValidate ?? false,
        unlessPaying: pays('validate'),
        scope: 'intents:validate',
      }),
    })
    registerExecuteRoute(intents, {
      registry,
      docs,
      journal,
      receiptTimeoutMs,
      requireSignedIntents,
      metrics,
      payments,
      guard,
      idempotencyKeyTtlMs,
      preValidation: credential({ required: true, unlessPaying: pays('execute'), scope: 'intents:execute' }),
    })
    registerGetIntentRoute(intents, { registry, journal })
    registerGetAccountRoute(intents, { registry })
    registerIntentEventsRoute(intents, {
      registry,
      journal,
      authenticate,
      slots: createStreamSlots({
        perClient: eventStreams.maxPerClient,
        perIntent: eventStreams.maxPerIntent,
        total: eventStreams.max,
      }),
    })
    // Without OAuth, a key is optional on /mcp itself (listing tools, explaining codes, the chains
    // are open, as over HTTP, and keyless x402 payers call the tools), and one that is sent must be
    // valid; each tool's route then asks for what it needs. With OAuth on, /mcp needs a credential:
    // an MCP host starts its OAuth flow only on a 401 from /mcp itself, naming the metadata.
    if (caller)
      registerMcpRoute(intents, {
        caller,
        version,
        docs,
        preValidation: credential({
          required: oauth !== undefined,
          challengeScope: 'intents:validate intents:execute',
        }),
        credentialRequired: oauth !== undefined,
        countRequest,
        registry,
        journal,
      })
  })
  // In a plugin too, so that the OpenAPI plugin above has loaded when they are added.
  app.register(async (operations) => {
    methodNotAllowed.watch(operations)
    registerHealthRoutes(operations, { registry, journal, instance })
    registerStatusCodesRoute(operations)
    registerChainsRoutes(operations, { registry })
    if (metrics && serveMetrics) registerMetricsRoute(operations, { metrics, token: metricsToken })
    if (payments) registerDiscoveryResourcesRoute(operations, { payments, mcp: caller !== undefined, docs })
    if (oauth)
      registerOAuthProtectedResourceRoute(operations, {
        config: oauth.config,
        documentationUrl: publicUrl && `${publicUrl}/docs`,
      })
  })
  // Last, once both have loaded: 405 for the other methods of every path they serve.
  app.register(async (answers) => methodNotAllowed.register(answers))
  return app
}

/** The chain a request names (X-Chain-Id, else the default), as the intent routes will choose it. */
function chainOf(registry: ChainRegistry, request: FastifyRequest): string {
  return requestChain(registry, request).chainId
}
