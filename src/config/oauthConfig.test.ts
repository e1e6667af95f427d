// OAUTH_ISSUER, OAUTH_AUDIENCE and OAUTH_JWKS_URL: opt-in, every problem named, http only outside
// production, the audience defaulting to PUBLIC_URL, and no credential in a URL ever shown.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readOAuthConfig, toResourceMetadataUrl } from './oauthConfig.ts'

const publicUrl = 'https://gateway.example'
const read = (env: Record<string, string>, options: { production?: boolean; url?: string | undefined } = {}) =>
  readOAuthConfig(env, {
    production: options.production ?? true,
    publicUrl: 'url' in options ? options.url : publicUrl,
  })

describe('OAuth settings (readOAuthConfig)', () => {
  it('is off without OAUTH_ISSUER, and says so when its companions are set alone', () => {
    assert.deepEqual(read({}), { value: undefined, problems: [] })
    assert.deepEqual(
      read({ OAUTH_AUDIENCE: 'https://gateway.example', OAUTH_JWKS_URL: 'https://as.example/jwks' }).problems,
      [
        'OAUTH_AUDIENCE: is set but OAUTH_ISSUER is not (OAuth access tokens are accepted only from a configured issuer)',
        'OAUTH_JWKS_URL: is set but OAUTH_ISSUER is not (OAuth access tokens are accepted only from a configured issuer)',
      ],
    )
  })

  it('keeps the issuer exactly as written (compared with iss as a string), the audience defaulting to PUBLIC_URL', () => {
    assert.deepEqual(read({ OAUTH_ISSUER: ' https://as.example ' }), {
      problems: [],
      value: {
        issuer: 'https://as.example',
        audience: publicUrl,
        jwksUrl: undefined,
        resourceMetadataUrl: 'https://gateway.example/.well-known/oauth-protected-resource',
      },
    })
    assert.equal(read({ OAUTH_ISSUER: 'https://as.example/' }).value?.issuer, 'https://as.example/')
    assert.deepEqual(
      read(
        {
          OAUTH_ISSUER: 'https://as.example/tenant/7',
          OAUTH_AUDIENCE: 'https://api.example/gw',
          OAUTH_JWKS_URL: 'https://as.example/keys?v=2',
        },
        { url: undefined },
      ),
      {
        problems: [],
        value: {
          issuer: 'https://as.example/tenant/7',
          audience: 'https://api.example/gw',
          jwksUrl: 'https://as.example/keys?v=2',
          resourceMetadataUrl: 'https://api.example/.well-known/oauth-protected-resource/gw',
        },
      },
    )
  })

  it('takes http only outside production', () => {
    const env = {
      OAUTH_ISSUER: 'http://127.0.0.1:9000',
      OAUTH_AUDIENCE: 'http://127.0.0.1:3000',
      OAUTH_JWKS_URL: 'http://127.0.0.1:9000/jwks',
    }
    assert.deepEqual(read(env, { production: false }).problems, [])
    assert.deepEqual(read(env).problems, [
      'OAUTH_ISSUER: must be an https URL when NODE_ENV=production, not http:',
      'OAUTH_AUDIENCE: must be an https URL when NODE_ENV=production, not http:',
      'OAUTH_JWKS_URL: must be an https URL when NODE_ENV=production, not http:',
    ])
    assert.equal(read(env).value, undefined)
  })

  it('names every problem at once, and never shows a credential', () => {
    const result = read({
      OAUTH_ISSUER: 'https://user:s3cret-pass@as.example',
      OAUTH_AUDIENCE: 'https://gateway.example/#frag',
      OAUTH_JWKS_URL: 'ftp://as.example/jwks',
    })
    assert.deepEqual(result.problems, [
      'OAUTH_ISSUER: must not hold credentials (its value is not shown)',
      'OAUTH_AUDIENCE: must not have a fragment',
      'OAUTH_JWKS_URL: must be an https URL when NODE_ENV=production, not ftp:',
    ])
    assert.ok(!JSON.stringify(result).includes('s3cret'))
    assert.deepEqual(read({ OAUTH_ISSUER: 'as.example', OAUTH_AUDIENCE: 'https://gateway.example?x=1' }).problems, [
      'OAUTH_ISSUER: not a URL (an absolute https URL)',
      'OAUTH_AUDIENCE: must not have a query',
    ])
    assert.deepEqual(read({ OAUTH_ISSUER: 'https://as.example?tenant=1' }).problems, [
      'OAUTH_ISSUER: must not have a query',
    ])
  })

  it('needs an audience: OAUTH_AUDIENCE, else PUBLIC_URL (checked as the audience it becomes)', () => {
    assert.deepEqual(read({ OAUTH_ISSUER: 'https://as.example' }, { url: undefined }).problems, [
      'OAUTH_AUDIENCE: required with OAUTH_ISSUER when PUBLIC_URL is not set (the URL clients reach the gateway at)',
    ])
    assert.deepEqual(read({ OAUTH_ISSUER: 'https://as.example' }, { url: 'http://gateway.example' }).problems, [
      'PUBLIC_URL (the default of OAUTH_AUDIENCE): must be an https URL when NODE_ENV=production, not http:',
    ])
  })

  it('places the protected resource metadata as RFC 9728 §3.1 says', () => {
    assert.equal(
      toResourceMetadataUrl('https://gateway.example'),
      'https://gateway.example/.well-known/oauth-protected-resource',
    )
    assert.equal(
      toResourceMetadataUrl('https://gateway.example/'),
      'https://gateway.example/.well-known/oauth-protected-resource',
    )
    assert.equal(
      toResourceMetadataUrl('https://gateway.example:8443/api/v1/'),
      'https://gateway.example:8443/.well-known/oauth-protected-resource/api/v1',
    )
  })
})
