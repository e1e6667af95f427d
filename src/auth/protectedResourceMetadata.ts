// The gateway's OAuth protected resource metadata (RFC 9728 §2), served at the well-known URL
// (config.oauth.resourceMetadataUrl): what an OAuth client (an MCP client, say) reads to learn
// which authorization server to ask, for which resource (RFC 8707) and which scopes.
import type { OAuthConfig } from '../config/oauthConfig.ts'
import { type OAuthScope, oauthScopes } from './oauthScopes.ts'

export type ProtectedResourceMetadata = {
  /** The audience tokens must be issued for; identical to what the metadata URL was derived from (RFC 9728 §3.3). */
  resource: string
  authorization_servers: string[]
  scopes_supported: OAuthScope[]
  /** RFC 6750 §2.1 only: a token in a query or a form body leaks into logs. */
  bearer_methods_supported: ['header']
  resource_name: string
  resource_documentation?: string | undefined
}

export function protectedResourceMetadata({
  config,
  documentationUrl,
}: {
  config: Pick<OAuthConfig, 'issuer' | 'audience'>
  documentationUrl?: string | undefined
}): ProtectedResourceMetadata {
  return {
    resource: config.audience,
    authorization_servers: [config.issuer],
    scopes_supported: [...oauthScopes],
    bearer_methods_supported: ['header'],
    resource_name: 'Intent Gateway',
    ...(documentationUrl !== undefined ? { resource_documentation: documentationUrl } : {}),
  }
}
