// GET /.well-known/oauth-protected-resource (RFC 9728): with OAuth on, what an OAuth client (an
// MCP host, say) reads after a 401 to learn which authorization server to ask, for which resource
// (RFC 8707) and which scopes. Served at the path its URL has (after the resource's own path, §3.1).
import type { FastifyInstance } from 'fastify'
import { protectedResourceMetadata } from '../../../auth/protectedResourceMetadata.ts'
import type { OAuthConfig } from '../../../config/oauthConfig.ts'
import { jsonResponse } from '../../schemas/httpSchemas.ts'

export type OAuthProtectedResourceRouteOptions = {
  config: OAuthConfig
  /** Linked as the resource's documentation (the gateway's GET /docs), when the gateway knows its public URL. */
  documentationUrl?: string | undefined
}

const metadataSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported'],
  properties: {
    resource: {
      type: 'string',
      description: 'the audience tokens must be issued for (ask for it as `resource`, RFC 8707)',
    },
    authorization_servers: { type: 'array', items: { type: 'string' } },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    bearer_methods_supported: { type: 'array', items: { type: 'string', enum: ['header'] } },
    resource_name: { type: 'string' },
    resource_documentation: { type: 'string' },
  },
} as const

/** The path the metadata is served at: its URL's, derived from the audience. */
export function oauthProtectedResourcePath(config: Pick<OAuthConfig, 'resourceMetadataUrl'>): string {
  return new URL(config.resourceMetadataUrl).pathname
}

export function registerOAuthProtectedResourceRoute(
  app: FastifyInstance,
  { config, documentationUrl }: OAuthProtectedResourceRouteOptions,
) {
  // The same document for every request: written once.
  const body = JSON.stringify(protectedResourceMetadata({ config, documentationUrl }))
  app.get(
    oauthProtectedResourcePath(config),
    {
      schema: {
        operationId: 'getOAuthProtectedResource',
        tags: ['operations'],
        summary:
          'OAuth 2.0 protected resource metadata (RFC 9728): the authorization server and scopes for access tokens',
        response: { 200: jsonResponse('the metadata document', metadataSchema) },
      },
    },
    // Public, as every discovery document; clients may keep it a while.
    async (_request, reply) => reply.type('application/json').header('cache-control', 'public, max-age=300').send(body),
  )
}
