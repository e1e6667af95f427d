// GET /discovery/resources: what this gateway sells, in the shape of x402's bazaar discovery
// (`DiscoveryResourcesResponse`), so that @x402/extensions' `withBazaar(...).extensions.bazaar.listResources()`
// pointed at the gateway lists it: each priced route and MCP tool on each chain, its `accepts`
// (price, asset, network, pay-to) and its `bazaar` declaration (how to call it).

import type { PaymentRequirements } from '@x402/core/types'
import type { FastifyInstance } from 'fastify'
import { intentSchema } from '../../../intents/intentSchema.ts'
import type { Payments } from '../../../payments/createPayments.ts'
import { mcpDiscoveryOf } from '../../mcp/mcpDiscoveryOf.ts'
import { createMcpTools } from '../../mcp/mcpTools.ts'
import { publicBaseUrl } from '../../publicBaseUrl.ts'
import type { ApiDocs } from '../../schemas/createApiDocs.ts'
import { httpDiscoveryOf } from '../intents/intentRoute.ts'

type Item = {
  resource: string
  type: 'http' | 'mcp'
  x402Version: 2
  accepts: PaymentRequirements[]
  lastUpdated: string
  description: string
  mimeType: string
  serviceName: string
  tags: string[]
  extensions: Record<string, unknown>
}

const query = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['http', 'mcp'], description: 'only HTTP routes or only MCP tools' },
    network: { type: 'string', maxLength: 100, description: 'only offers on this CAIP-2 network' },
    scheme: { type: 'string', maxLength: 20, description: 'only offers with this x402 scheme' },
    payTo: { type: 'string', maxLength: 100, description: 'only offers paid to this address' },
    extensions: { type: 'string', maxLength: 40, description: 'only resources declaring this extension' },
    limit: { type: 'string', pattern: '^(100|[1-9][0-9]?)$', description: 'page size, 1 to 100 (default 100)' },
    offset: { type: 'string', pattern: '^(0|[1-9][0-9]{0,3})$', description: 'first item, 0 to 9999 (default 0)' },
  },
} as const

type Query = {
  type?: 'http' | 'mcp'
  network?: string
  scheme?: string
  payTo?: string
  extensions?: string
  limit?: string
  offset?: string
}

export function registerDiscoveryResourcesRoute(
  app: FastifyInstance,
  { payments, mcp, docs }: { payments: Payments; mcp: boolean; docs: ApiDocs },
) {
  const mcpTools = createMcpTools(docs)
  const started = new Date().toISOString()
  const routeOf = {
    execute: { url: '/intents/execute', tool: 'execute_intent' },
    validate: { url: '/intents/validate', tool: 'validate_intent' },
  } as const
  app.get<{ Querystring: Query }>(
    '/discovery/resources',
    {
      schema: {
        operationId: 'listDiscoveryResources',
        tags: ['payments'],
        summary: 'What the gateway sells: priced routes and MCP tools with their x402 offers and bazaar declarations',
        description:
          'The x402 bazaar discovery shape (`x402Version`, `items`, `pagination`): one item per priced route (and MCP tool) per chain, with `accepts` (scheme, network, asset, amount, pay-to) and `extensions.bazaar` (how to call it). Read it with @x402/extensions: `withBazaar(new HTTPFacilitatorClient({ url: <gateway> })).extensions.bazaar.listResources()`.',
        querystring: query,
        response: {
          200: {
            type: 'object',
            additionalProperties: true,
            required: ['x402Version', 'items', 'pagination'],
            properties: {
              x402Version: { type: 'integer' },
              items: { type: 'array', items: { type: 'object', additionalProperties: true } },
              pagination: { type: 'object', additionalProperties: true },
            },
          },
        },
      },
    },
    async (request, reply) => {
      // PUBLIC_URL, never the Host a caller wrote.
      const base = publicBaseUrl(request.server)
      const items: Item[] = []
      for (const offer of await payments.offers()) {
        const { url, tool } = routeOf[offer.route]
        const schema = { body: intentSchema }
        const what =
          offer.route === 'execute'
            ? 'Execute an intent on-chain through the relayer'
            : "Validate an intent against the chain's policy"
        const common = {
          x402Version: 2 as const,
          accepts: offer.accepts,
          lastUpdated: started,
          mimeType: 'application/json',
          serviceName: 'Intent Gateway',
          tags: ['intents', offer.chainId.split(':')[0]!, offer.route],
        }
        items.push({
          ...common,
          resource: `${base}${url}`,
          type: 'http',
          description: `${what} on ${offer.chainId} (send X-Chain-Id: ${offer.chainId})`,
          extensions: httpDiscoveryOf(offer.route, schema, docs),
        })
        const mcpTool = mcp ? mcpTools.find((t) => t.name === tool) : undefined
        if (mcpTool)
          items.push({
            ...common,
            resource: `${base}/mcp`,
            type: 'mcp',
            description: `${what} on ${offer.chainId} (MCP tool ${tool}, chainId ${offer.chainId})`,
            extensions: mcpDiscoveryOf(mcpTool),
          })
      }
      const q = request.query
      const matching = items.filter(
        (item) =>
          (!q.type || item.type === q.type) &&
          (!q.extensions || q.extensions in item.extensions) &&
          item.accepts.some(
            (a) =>
              (!q.network || a.network === q.network) &&
              (!q.scheme || a.scheme === q.scheme) &&
              (!q.payTo || a.payTo === q.payTo),
          ),
      )
      const limit = q.limit ? Number(q.limit) : 100
      const offset = q.offset ? Number(q.offset) : 0
      return reply.header('cache-control', 'no-store').send({
        x402Version: 2,
        items: matching.slice(offset, offset + limit),
        pagination: { limit, offset, total: matching.length },
      })
    },
  )
}
