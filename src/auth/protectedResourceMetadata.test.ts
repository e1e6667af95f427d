// The RFC 9728 §2 document: the audience as the resource, the one issuer, the gateway's scopes,
// bearer tokens in the header only.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readOAuthConfig } from '../config/oauthConfig.ts'
import { protectedResourceMetadata } from './protectedResourceMetadata.ts'

describe('protected resource metadata (RFC 9728)', () => {
  it('names the audience as the resource, the configured issuer, the scopes and the header method', () => {
    const { value: config } = readOAuthConfig(
      { OAUTH_ISSUER: 'https://as.example/tenant' },
      { production: true, publicUrl: 'https://gateway.example' },
    )
    assert.deepEqual(protectedResourceMetadata({ config: config! }), {
      resource: 'https://gateway.example',
      authorization_servers: ['https://as.example/tenant'],
      scopes_supported: ['intents:validate', 'intents:execute', 'ops:read', 'ops:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Intent Gateway',
    })
    assert.equal(config!.resourceMetadataUrl, 'https://gateway.example/.well-known/oauth-protected-resource')
  })

  it('links the documentation when given, and takes an audience other than PUBLIC_URL as the resource', () => {
    const { value: config } = readOAuthConfig(
      { OAUTH_ISSUER: 'https://as.example', OAUTH_AUDIENCE: 'https://api.example/agents' },
      { production: true, publicUrl: 'https://gateway.example' },
    )
    const document = protectedResourceMetadata({ config: config!, documentationUrl: 'https://gateway.example/docs' })
    assert.equal(document.resource, 'https://api.example/agents')
    assert.equal(document.resource_documentation, 'https://gateway.example/docs')
    // RFC 9728 §3.3: the document is served where its resource says, so a client can check the two agree.
    assert.equal(config!.resourceMetadataUrl, 'https://api.example/.well-known/oauth-protected-resource/agents')
  })
})
