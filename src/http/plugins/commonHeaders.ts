// The headers every response carries (docs/api-contract.md §3), set in one onSend hook from whatever
// the route recorded, so that errors raised anywhere, even before routing, carry them too; and
// the security headers, on every response.
import type { FastifyInstance } from 'fastify'
import type { ChainRegistry } from '../../intents/createChainRegistry.ts'
import { describedChain } from '../requestChain.ts'
import { toCommonHeaders } from '../toCommonHeaders.ts'
import { securityHeaders } from './securityHeaders.ts'

export function registerCommonHeaders(app: FastifyInstance, registry: ChainRegistry) {
  // Fastify types a decorator's initial value as the declared type (GatewayContext, gatewayContext.ts): null is
  // the placeholder its docs recommend (a request's shape fixed once), replaced in onRequest.
  app.decorateRequest('gateway', null as never)
  app.decorateRequest('rawBody', undefined)
  const security = securityHeaders()

  // Callback hooks, not async ones: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(security)
    // Set first, so that every answer, a 404 or a 413 from the parser included, carries it.
    reply.header('x-request-id', request.id)
    const { chainId, chainType } = describedChain(registry, request)
    request.gateway = { chainId, chainType, intentHash: undefined, status: undefined }
    done()
  })

  app.addHook('onSend', (request, reply, payload, done) => {
    const context = request.gateway ?? { ...registry.describe(undefined), intentHash: undefined, status: undefined }
    reply.headers(toCommonHeaders({ context, httpStatus: reply.statusCode, rawBody: request.rawBody }))
    done(null, payload)
  })
}
