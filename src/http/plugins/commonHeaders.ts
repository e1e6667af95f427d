// The headers every response carries (api-contract.md §3), set in one onSend hook from whatever
// the route recorded, so that errors raised anywhere, even before routing, carry them too.
import type { FastifyInstance } from 'fastify'
import type { ChainRegistry } from '../../chains/createChainRegistry.ts'
import { toCommonHeaders } from '../toCommonHeaders.ts'

export function registerCommonHeaders(app: FastifyInstance, registry: ChainRegistry) {
  app.decorateRequest('gateway', null as never)
  app.decorateRequest('rawBody', undefined)

  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-chain-id']
    request.gateway = { ...registry.describe(Array.isArray(header) ? header[0] : header), intentHash: undefined, status: undefined }
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const context = request.gateway ?? { ...registry.describe(undefined), intentHash: undefined, status: undefined }
    reply.headers(toCommonHeaders({ context, httpStatus: reply.statusCode, rawBody: request.rawBody }))
    return payload
  })
}
