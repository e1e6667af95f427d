// The request span of every HTTP request, from Fastify's official instrumentation (@fastify/otel):
// a SERVER span that continues the caller's W3C `traceparent`, with the route handler in a child
// span inside whose context the domain runs (so RPC calls, journal writes and payment steps nest
// under it). Its name is the method and route pattern; this adds what the gateway learnt of the
// request (the chain resolved from X-Chain-Id, the intent hash, the ERC-1066 status) before the
// span ends. (Fastify's onResponse hooks, the request log line's, already run in the request's
// context: its trace id reaches that line without help.)

import { FastifyOtelInstrumentation } from '@fastify/otel'
import type { TracerProvider } from '@opentelemetry/api'
import type { FastifyInstance } from 'fastify'
import '../http/gatewayContext.ts'

export function createAppInstrumentation({
  tracerProvider,
}: {
  tracerProvider: TracerProvider
}): (app: FastifyInstance) => void {
  const instrumentation = new FastifyOtelInstrumentation({
    // The handler's span is the context the domain runs in; a span per hook would only be noise.
    instrumentHooks: false,
    instrumentHandler: true,
    requestHook(span, request) {
      span.updateName(`${request.method} ${request.routeOptions.url ?? ''}`.trim())
      span.setAttribute('intent_gateway.request_id', request.id)
      // @fastify/otel writes the raw URL, query string included (a token or key a caller put
      // there would be exported with every span): the path alone.
      span.setAttribute('url.path', request.url.split('?')[0]!)
    },
    // Its handler spans are named after the plugin, which for an anonymous plugin is the
    // plugin's source text: name them after the route instead.
    lifecycleHook(span, { hookName, request }) {
      const what = `${hookName} ${request.method} ${request.routeOptions.url ?? ''}`.trim()
      span.updateName(what)
      span.setAttribute('hook.name', what)
      span.setAttribute('hook.callback.name', hookName)
    },
  })
  instrumentation.setTracerProvider(tracerProvider)
  return (app) => {
    // At once rather than through app.register: its onRoute hook must see every route and its
    // onRequest hook run before the routes' own (as @fastify/otel's registerOnInitialization does).
    instrumentation.plugin()(app, {}, () => undefined)
    // After the common-headers hook (buildApp calls this right after it), before the span ends in
    // the route's own onSend: the headers are set, so the ERC-1066 status is the one answered.
    app.addHook('onSend', (request, reply, payload, done) => {
      const { span } = request.opentelemetry()
      if (span) {
        const gateway = request.gateway
        if (gateway) {
          span.setAttribute('intent_gateway.chain_id', gateway.chainId)
          span.setAttribute('intent_gateway.chain_type', gateway.chainType)
          if (gateway.intentHash) span.setAttribute('intent_gateway.intent_hash', gateway.intentHash)
        }
        const status = reply.getHeader('x-erc1066-status')
        if (typeof status === 'string') span.setAttribute('intent_gateway.erc1066_status', status)
        span.setAttribute('http.response.status_code', reply.statusCode)
      }
      done(null, payload)
    })
  }
}
