// The RFC 6750 §3 challenge: no error code without a credential, the error and its description
// with one, the scope where one is needed, the RFC 9728 metadata URL always; nothing a value
// holds can end its quoted string or start another parameter or header.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { wwwAuthenticate } from './wwwAuthenticate.ts'

const resourceMetadataUrl = 'https://gateway.example/.well-known/oauth-protected-resource'

describe('WWW-Authenticate: Bearer (wwwAuthenticate)', () => {
  it('names no error for a request without a credential, and the scope it needs when given', () => {
    assert.equal(
      wwwAuthenticate({ resourceMetadataUrl }),
      `Bearer realm="intent-gateway", resource_metadata="${resourceMetadataUrl}"`,
    )
    assert.equal(
      wwwAuthenticate({ resourceMetadataUrl, scope: 'intents:execute' }),
      `Bearer realm="intent-gateway", scope="intents:execute", resource_metadata="${resourceMetadataUrl}"`,
    )
  })

  it('names the error and its description, and the missing scope of insufficient_scope', () => {
    assert.equal(
      wwwAuthenticate({
        resourceMetadataUrl,
        refusal: { error: 'invalid_token', description: 'the token has expired' },
      }),
      `Bearer realm="intent-gateway", error="invalid_token", error_description="the token has expired", resource_metadata="${resourceMetadataUrl}"`,
    )
    assert.equal(
      wwwAuthenticate({
        resourceMetadataUrl,
        refusal: { error: 'insufficient_scope', description: 'needs ops:write', scope: 'ops:write' },
        scope: 'ignored',
      }),
      `Bearer realm="intent-gateway", error="insufficient_scope", error_description="needs ops:write", scope="ops:write", resource_metadata="${resourceMetadataUrl}"`,
    )
  })

  it('keeps every value inside its quotes: no quote, backslash, control or non-ASCII character survives (RFC 6750 §3)', () => {
    const header = wwwAuthenticate({
      resourceMetadataUrl,
      refusal: { error: 'invalid_token', description: 'bad "token"\\", error="none\r\nSet-Cookie: x=1 — ünïcode' },
    })
    assert.equal(
      header,
      `Bearer realm="intent-gateway", error="invalid_token", error_description="bad  token   , error= none  Set-Cookie: x=1    n code", resource_metadata="${resourceMetadataUrl}"`,
    )
    // Exactly the parameters written, each quoted once.
    assert.deepEqual(
      [...header.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => m[1]),
      ['realm', 'error', 'error_description', 'resource_metadata'],
    )
    assert.ok(!/[\r\n]/.test(header))
  })
})
