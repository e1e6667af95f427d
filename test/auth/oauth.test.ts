// The OAuth 2.1 resource server's token check (issue 42 item 2) against a real authorization
// server run locally (oauth2-mock-server: its token endpoint, discovery document and JWKS over
// HTTP): a good access token names its caller; every forged, stale or misdirected one is refused
// with the RFC 6750 error and challenge; keys come only from the issuer's key set, refetched at
// most every 30 s; no token is ever logged.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import type { MutableToken } from 'oauth2-mock-server'
import { pino } from 'pino'
import { authenticateBearer } from '../../src/auth/authenticateBearer.ts'
import { AuthorizationServerUnreachableError } from '../../src/auth/authorizationServerUnreachableError.ts'
import { checkScope } from '../../src/auth/checkScope.ts'
import { createApiKeyCheck } from '../../src/auth/createApiKeyCheck.ts'
import { createOAuthVerifier, type OAuthVerification, type OAuthVerifier } from '../../src/auth/createOAuthVerifier.ts'
import { createRequestAuthenticator } from '../../src/auth/createRequestAuthenticator.ts'
import { toOAuthError } from '../../src/auth/toOAuthError.ts'
import { wwwAuthenticate } from '../../src/auth/wwwAuthenticate.ts'
import { type OAuthConfig, readOAuthConfig } from '../../src/config/oauthConfig.ts'
import { hashApiKey } from '../../src/crypto/hashApiKey.ts'
import { GatewayError } from '../../src/errors/gatewayError.ts'
import { InputError } from '../../src/errors/inputError.ts'
import { getStatusCode } from '../../src/status/statusCodes.ts'
import {
  type AuthorizationServer,
  asAccessToken,
  requestToken,
  startAuthorizationServer,
} from '../support/authorizationServer.ts'

const audience = 'http://127.0.0.1:3999'
const metadataUrl = `${audience}/.well-known/oauth-protected-resource`
const apiKey = 'oauth-test-api-key-0123456789'

/** A real authorization server on a local port, counting the requests each of its paths gets. */
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const now = () => Math.floor(Date.now() / 1000)

/** The log lines the verifier wrote, to hold them against every token the test made. */
function captureLogs() {
  const lines: string[] = []
  const logger = pino(
    { level: 'trace' },
    new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
  )
  return { logger, lines }
}

function assertRefused(result: OAuthVerification, description: string, error = 'invalid_token', httpStatus = 401) {
  assert.equal(result.ok, false, `expected a refusal (${description}), got ${JSON.stringify(result)}`)
  if (result.ok) return
  assert.equal(result.error, error)
  assert.equal(result.httpStatus, httpStatus)
  assert.equal(result.description, description)
  // The challenge an HTTP answer carries for it, and the status it is answered with.
  assert.equal(
    wwwAuthenticate({ resourceMetadataUrl: metadataUrl, refusal: result }),
    `Bearer realm="intent-gateway", error="${error}", error_description="${description}", resource_metadata="${metadataUrl}"`,
  )
  const answer = toOAuthError({ refusal: result, resourceMetadataUrl: metadataUrl })
  assert.equal(getStatusCode(answer.status).httpStatus, httpStatus)
  assert.equal(
    answer.headers['www-authenticate'],
    wwwAuthenticate({ resourceMetadataUrl: metadataUrl, refusal: result }),
  )
}

describe('OAuth access tokens against a real local authorization server', () => {
  let as: AuthorizationServer
  let other: AuthorizationServer
  let config: OAuthConfig
  let verifier: OAuthVerifier
  const logs = captureLogs()
  const tokens: string[] = []
  const issued = async (...args: Parameters<typeof requestToken>) => {
    const token = await requestToken(...args)
    tokens.push(token)
    return token
  }

  before(async () => {
    as = await startAuthorizationServer()
    other = await startAuthorizationServer()
    const read = readOAuthConfig({ OAUTH_ISSUER: as.url }, { production: false, publicUrl: audience })
    assert.deepEqual(read.problems, [])
    config = read.value!
    // No OAUTH_JWKS_URL: the key set is discovered from the issuer's metadata.
    verifier = createOAuthVerifier({ config, logger: logs.logger })
  })

  after(async () => {
    await as.close()
    await other.close()
    for (const token of tokens) {
      for (const part of [token, ...token.split('.').filter((p) => p.length > 16)])
        assert.ok(!logs.lines.some((line) => line.includes(part)), 'a token (or a part of one) was logged')
    }
  })

  it('accepts an access token from the token endpoint: identity oauth:<iss>#<sub> with the gateway scopes it grants', async () => {
    const token = await issued(as, { aud: audience, scope: 'intents:validate intents:execute openid profile' })
    assert.deepEqual(await verifier.verify(token), {
      ok: true,
      identity: {
        id: `oauth:${as.url}#agent-7`,
        issuer: as.url,
        subject: 'agent-7',
        scopes: ['intents:validate', 'intents:execute'],
      },
    })
    // Discovered: RFC 8414's document first (this server has none: 404), then OpenID's; the key set once.
    assert.equal(as.hits.get('/.well-known/oauth-authorization-server'), 1)
    assert.equal(as.hits.get('/.well-known/openid-configuration'), 1)
    assert.equal(as.hits.get('/jwks'), 1)
    // An audience list containing ours, and the media-type form of typ (RFC 9068 §2.1), are accepted too.
    const listed = await issued(as, { aud: audience, scope: 'ops:read' }, (t) => {
      asAccessToken(t, 'operator@example')
      t.header.typ = 'application/at+jwt'
      t.payload.aud = ['https://other.example', audience]
    })
    const result = await verifier.verify(listed)
    assert.ok(result.ok)
    assert.equal(result.identity.id, `oauth:${as.url}#operator@example`)
    assert.deepEqual(result.identity.scopes, ['ops:read'])
    assert.equal(as.hits.get('/jwks'), 1, 'the key set is cached')
  })

  it('refuses an expired token (60 s of leeway, no more), one without exp, and one without sub', async () => {
    const expired = await issued(as, { aud: audience }, (t) => (asAccessToken(t), (t.payload.exp = now() - 61)))
    assertRefused(await verifier.verify(expired), 'the token has expired')
    const withinLeeway = await issued(as, { aud: audience }, (t) => (asAccessToken(t), (t.payload.exp = now() - 30)))
    assert.equal((await verifier.verify(withinLeeway)).ok, true)
    const noExp = await issued(
      as,
      { aud: audience },
      (t) => (asAccessToken(t), delete (t.payload as Record<string, unknown>).exp),
    )
    assertRefused(await verifier.verify(noExp), 'the exp claim is missing or not valid')
    const noSub = await issued(as, { aud: audience }, (t) => (t.header.typ = 'at+jwt'))
    assertRefused(await verifier.verify(noSub), 'the sub claim is missing or not valid')
    const emptySub = await issued(as, { aud: audience }, (t) => asAccessToken(t, ''))
    assertRefused(await verifier.verify(emptySub), 'the sub claim must be a non-empty string')
    const longSub = await issued(as, { aud: audience }, (t) => asAccessToken(t, 's'.repeat(256)))
    assertRefused(await verifier.verify(longSub), 'the sub claim is longer than 255 characters')
    const longestSub = await issued(as, { aud: audience }, (t) => asAccessToken(t, 's'.repeat(255)))
    assert.equal((await verifier.verify(longestSub)).ok, true)
  })

  it('refuses a token for another resource (RFC 8707) and one with no audience', async () => {
    const forOther = await issued(as, { aud: 'https://another-resource.example/mcp', scope: 'intents:execute' })
    const description =
      "the token's audience is not this gateway (ask for it with resource set to this gateway's URL, RFC 8707)"
    assertRefused(await verifier.verify(forOther), description)
    const prefix = await issued(as, { aud: `${audience}.evil.example` })
    assertRefused(await verifier.verify(prefix), description)
    const none = await issued(as, {})
    assertRefused(await verifier.verify(none), description)
  })

  it("refuses a token of another issuer, and one claiming to be another issuer's though signed with this issuer's key", async () => {
    const foreign = await issued(other, { aud: audience, scope: 'intents:execute' })
    assertRefused(await verifier.verify(foreign), "the token is not signed with a key of the issuer's key set")
    const renamed = await issued(as, { aud: audience }, (t) => (asAccessToken(t), (t.payload.iss = other.url)))
    assertRefused(await verifier.verify(renamed), 'the token was not issued by the configured issuer')
    const slash = await issued(as, { aud: audience }, (t) => (asAccessToken(t), (t.payload.iss = `${as.url}/`)))
    assertRefused(await verifier.verify(slash), 'the token was not issued by the configured issuer')
  })

  it('refuses an ID token (typ JWT): the one the token endpoint issues, and one made out for our audience', async () => {
    // The password grant returns an ID token beside the access token; its aud is the client id: ours, here.
    as.service.once('beforeTokenSigning', (t: MutableToken) => asAccessToken(t))
    const response = await fetch(`${as.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        username: 'agent-7',
        client_id: audience,
        scope: 'intents:execute',
      }),
    })
    const { id_token: idToken } = (await response.json()) as { id_token: string }
    tokens.push(idToken)
    assert.equal(JSON.parse(Buffer.from(idToken.split('.')[0]!, 'base64url').toString()).typ, 'JWT')
    const description = 'not an access token: its typ header must be at+jwt (RFC 9068); ID tokens are refused'
    assertRefused(await verifier.verify(idToken), description)
    const noTyp = await issued(
      as,
      { aud: audience },
      (t) => (asAccessToken(t), delete (t.header as Record<string, unknown>).typ),
    )
    assertRefused(await verifier.verify(noTyp), description)
  })

  it('refuses alg none, HS256 with a guessable secret, HS256 keyed with the issuer public key, and RS384', async () => {
    const claims = { iss: as.url, aud: audience, sub: 'attacker', exp: now() + 600, scope: 'intents:execute' }
    const description = "the token's signature algorithm is not accepted (RS256, ES256, EdDSA)"
    const none = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`
    assertRefused(await verifier.verify(none), description)
    const kid = as.issuer.keys.toJSON()[0]!.kid
    for (const secret of ['secret', JSON.stringify(as.issuer.keys.toJSON()[0])]) {
      const hs = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
        .sign(new TextEncoder().encode(secret))
      assertRefused(await verifier.verify(hs), description)
    }
    // A strong algorithm, but not one of ours: refused before any key is looked up.
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const rs384 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS384', typ: 'at+jwt', kid })
      .sign(rsa.privateKey)
    assertRefused(await verifier.verify(rs384), description)
  })

  it("refuses jku, x5u and jwk headers pointing at the attacker's own key, and never fetches them", async () => {
    const attackerHits: string[] = []
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true })
    const jwk = { ...(await exportJWK(publicKey)), kid: 'attacker', alg: 'ES256', use: 'sig' }
    const attacker = createServer((req, res) => {
      attackerHits.push(req.url ?? '')
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ keys: [jwk] }))
    })
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/jwks`
    try {
      const claims = {
        iss: as.url,
        aud: audience,
        sub: 'attacker',
        exp: now() + 600,
        scope: 'intents:execute ops:write',
      }
      const realKid = as.issuer.keys.toJSON()[0]!.kid
      const sign = (header: Record<string, unknown>) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...header }).sign(privateKey)
      assertRefused(
        await verifier.verify(await sign({ kid: 'attacker', jku: attackerUrl })),
        "the token is not signed with a key of the issuer's key set",
      )
      assertRefused(
        await verifier.verify(await sign({ kid: 'attacker', x5u: attackerUrl })),
        "the token is not signed with a key of the issuer's key set",
      )
      assertRefused(
        await verifier.verify(await sign({ kid: 'attacker', jwk })),
        "the token is not signed with a key of the issuer's key set",
      )
      // The issuer's own kid on the attacker's signature: the issuer's RSA key does not verify an ES256 signature.
      assertRefused(
        await verifier.verify(await sign({ kid: realKid, jwk })),
        "the token is not signed with a key of the issuer's key set",
      )
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
      const rsForged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: realKid, jwk: rsa.publicKey.export({ format: 'jwk' }) })
        .sign(rsa.privateKey)
      assertRefused(await verifier.verify(rsForged), 'the token signature is not valid')
      assert.deepEqual(attackerHits, [], "the attacker's key URL was fetched")
    } finally {
      await new Promise<void>((resolve) => attacker.close(() => resolve()))
    }
  })

  it('refuses what is not a signed JWT: garbage, an encrypted (5-part) token, an oversized one', async () => {
    const description = 'not a signed JWT access token (three base64url parts)'
    assertRefused(await verifier.verify('not-a-jwt'), description)
    assertRefused(await verifier.verify('a.b.c.d.e'), description)
    assertRefused(await verifier.verify(`${'a'.repeat(20_000)}.b.c`), description)
    assertRefused(await verifier.verify(`${b64({ alg: 'RS256' })}.!!.x`), description)
    assertRefused(
      await verifier.verify(`${b64({ alg: 'RS256', typ: 'at+jwt' })}.${b64({})}.AAAA`),
      'the token signature is not valid',
    )
    // A signed token whose payload is not a JSON object.
    const key = as.issuer.keys.toJSON()[0]!.kid
    const notClaims = await as.issuer.buildToken({ kid: key, scopesOrTransform: (header) => (header.typ = 'at+jwt') })
    const [h, , sig] = notClaims.split('.')
    assertRefused(
      await verifier.verify(`${h}.${Buffer.from('[1]').toString('base64url')}.${sig}`),
      'the token signature is not valid',
    )
    assertRefused(
      await verifier.verify(`${b64({ alg: 'RS256', typ: 'at+jwt', crit: ['exp-ext'], 'exp-ext': 1 })}.${b64({})}.AAAA`),
      'the token is malformed',
    )
  })

  it('names the scope a request needs: 403 insufficient_scope for an OAuth caller without it; an API key needs none', async () => {
    const apiKeys = createApiKeyCheck([hashApiKey(apiKey)])
    const token = await issued(as, { aud: audience, scope: 'intents:validate' })
    const auth = await authenticateBearer({ header: `Bearer ${token}`, apiKeys, oauth: verifier })
    assert.ok(auth.ok && auth.caller.kind === 'oauth')
    assert.equal(checkScope(auth.caller, 'intents:validate'), undefined)
    const refusal = checkScope(auth.caller, 'intents:execute')
    assert.deepEqual(refusal, {
      ok: false,
      httpStatus: 403,
      error: 'insufficient_scope',
      description: 'the token does not grant the intents:execute scope this request needs',
      scope: 'intents:execute',
    })
    const answer = toOAuthError({ refusal, resourceMetadataUrl: metadataUrl })
    assert.equal(getStatusCode(answer.status).httpStatus, 403)
    assert.equal(
      answer.headers['www-authenticate'],
      `Bearer realm="intent-gateway", error="insufficient_scope", error_description="the token does not grant the intents:execute scope this request needs", scope="intents:execute", resource_metadata="${metadataUrl}"`,
    )
    const byKey = await authenticateBearer({ header: `Bearer ${apiKey}`, apiKeys, oauth: verifier })
    assert.ok(byKey.ok)
    assert.equal(checkScope(byKey.caller, 'ops:write'), undefined)
  })

  it('takes a configured API key first, any other bearer token as an access token; no credential and a malformed header are named', async () => {
    const apiKeys = createApiKeyCheck([hashApiKey(apiKey)])
    const jwksBefore = as.hits.get('/jwks')
    assert.deepEqual(await authenticateBearer({ header: `bearer ${apiKey}`, apiKeys, oauth: verifier }), {
      ok: true,
      caller: { kind: 'apiKey', id: hashApiKey(apiKey).toString('hex').slice(0, 8) },
    })
    const token = await issued(as, { aud: audience, scope: 'intents:execute' })
    const auth = await authenticateBearer({ header: `Bearer ${token}`, apiKeys, oauth: verifier })
    assert.ok(auth.ok && auth.caller.kind === 'oauth')
    assert.equal(auth.caller.id, `oauth:${as.url}#agent-7`)
    assert.equal(as.hits.get('/jwks'), jwksBefore, 'neither an API key nor a known kid fetches the key set')
    // Not a key, not a token.
    assert.deepEqual(
      await authenticateBearer({ header: 'Bearer oauth-test-api-key-wrong', apiKeys, oauth: verifier }),
      {
        ok: false,
        refusal: {
          ok: false,
          httpStatus: 401,
          error: 'invalid_token',
          description: 'not a signed JWT access token (three base64url parts)',
        },
      },
    )
    // No credential: RFC 6750 §3.1, a challenge without an error code.
    const missing = await authenticateBearer({ header: undefined, apiKeys, oauth: verifier })
    assert.deepEqual(missing, { ok: false, refusal: undefined })
    const challenge = toOAuthError({ refusal: undefined, resourceMetadataUrl: metadataUrl, scope: 'intents:execute' })
    assert.equal(getStatusCode(challenge.status).httpStatus, 401)
    assert.equal(
      challenge.headers['www-authenticate'],
      `Bearer realm="intent-gateway", scope="intents:execute", resource_metadata="${metadataUrl}"`,
    )
    // A malformed header: 400 invalid_request, naming the header.
    const malformed = await authenticateBearer({ header: `Bearer ${token} extra`, apiKeys, oauth: verifier })
    assert.ok(!malformed.ok && malformed.refusal)
    assert.equal(malformed.refusal.error, 'invalid_request')
    const input = toOAuthError({ refusal: malformed.refusal, resourceMetadataUrl: metadataUrl })
    assert.ok(input instanceof InputError)
    assert.equal(getStatusCode(input.status).httpStatus, 400)
    assert.deepEqual(input.errors, [
      {
        field: 'Authorization',
        message: 'the Authorization header must be Bearer followed by one token (RFC 6750 §2.1)',
      },
    ])
    assert.match(input.headers['www-authenticate']!, /^Bearer realm="intent-gateway", error="invalid_request", /)
    // Without an issuer configured, an access token is just a wrong key, as before.
    assert.deepEqual(await authenticateBearer({ header: `Bearer ${token}`, apiKeys }), {
      ok: false,
      refusal: {
        ok: false,
        httpStatus: 401,
        error: 'invalid_token',
        description: 'the bearer token matches no configured API key',
      },
    })
    assert.deepEqual(await authenticateBearer({ header: 'Basic dXNlcjpwYXNz', apiKeys }), {
      ok: false,
      refusal: {
        ok: false,
        httpStatus: 401,
        error: 'invalid_token',
        description: 'the bearer token matches no configured API key',
      },
    })
  })
})

describe('one authentication per request (createRequestAuthenticator)', () => {
  it('checks a request once however many hooks ask, each request on its own; an unreachable issuer rejects every asker', async () => {
    const as = await startAuthorizationServer({ withKey: false })
    await as.issuer.keys.generate('ES256')
    const config = readOAuthConfig({ OAUTH_ISSUER: as.url }, { production: false, publicUrl: audience }).value!
    const real = createOAuthVerifier({ config })
    let verified = 0
    const oauth: OAuthVerifier = { ...real, verify: (token) => (verified++, real.verify(token)) }
    const authenticate = createRequestAuthenticator({ apiKeys: createApiKeyCheck([hashApiKey(apiKey)]), oauth })
    const token = await requestToken(as, { aud: audience, scope: 'intents:execute' })
    const request = { headers: { authorization: `Bearer ${token}` } }
    const [first, second] = await Promise.all([authenticate(request), authenticate(request)])
    assert.ok(first.ok && first.caller.kind === 'oauth')
    assert.equal(first, second)
    assert.equal(verified, 1)
    assert.equal((await authenticate({ headers: { authorization: `Bearer ${token}` } })).ok, true)
    assert.equal(verified, 2)
    assert.deepEqual(await authenticate({ headers: { authorization: `Bearer ${apiKey}` } }), {
      ok: true,
      caller: { kind: 'apiKey', id: hashApiKey(apiKey).toString('hex').slice(0, 8) },
    })
    assert.equal(verified, 2, 'an API key is not an access token')
    await as.close()
    const down = createRequestAuthenticator({
      apiKeys: createApiKeyCheck([]),
      oauth: createOAuthVerifier({ config, timeoutMs: 1_000 }),
    })
    const stranded = { headers: { authorization: `Bearer ${token}` } }
    await assert.rejects(down(stranded), AuthorizationServerUnreachableError)
    await assert.rejects(down(stranded), AuthorizationServerUnreachableError)
  })
})

describe('OAuth key rotation and the key set refetch', () => {
  it('accepts a rotated key once the key set is refetched, and refetches for an unknown kid at most once every 30 s', async (t) => {
    const as = await startAuthorizationServer({ withKey: false })
    try {
      const first = await as.issuer.keys.generate('ES256')
      const verifier = createOAuthVerifier({
        config: {
          ...readOAuthConfig(
            { OAUTH_ISSUER: as.url, OAUTH_JWKS_URL: `${as.url}/jwks` },
            { production: false, publicUrl: audience },
          ).value!,
        },
      })
      const jwks = () => as.hits.get('/jwks') ?? 0
      // The issuer's own signing with a chosen key (its token endpoint takes the keys in turn).
      const sign = (kid: string, sub = 'agent-9') =>
        as.issuer.buildToken({
          kid,
          scopesOrTransform: (header, payload) => (
            asAccessToken({ header, payload }, sub), (payload.aud = audience), (payload.scope = 'intents:execute')
          ),
        })
      // Only Date is faked: jose times its cooldown with Date.now(), the sockets keep real timers.
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() })
      assert.equal((await verifier.verify(await sign(first.kid))).ok, true)
      assert.equal(jwks(), 1)
      assert.equal(
        as.hits.get('/.well-known/openid-configuration'),
        undefined,
        'OAUTH_JWKS_URL set: nothing discovered',
      )

      // The issuer rotates: it publishes a new EdDSA key and signs with it at once.
      const second = await as.issuer.keys.generate('EdDSA', { crv: 'Ed25519' })
      const rotated = await sign(second.kid)
      const unknownKey = "the token is not signed with a key of the issuer's key set"
      // Within 30 s of the last fetch an unknown kid fetches nothing: refused.
      assertRefused(await verifier.verify(rotated), unknownKey)
      t.mock.timers.tick(29_000)
      assertRefused(await verifier.verify(rotated), unknownKey)
      assert.equal(jwks(), 1)
      // Past 30 s: one refetch, and the new key is accepted.
      t.mock.timers.tick(1_500)
      const accepted = await verifier.verify(rotated)
      assert.ok(accepted.ok, JSON.stringify(accepted))
      assert.equal(accepted.identity.subject, 'agent-9')
      assert.equal(jwks(), 2)
      // The old key, still published, keeps working; a flood of unknown kids fetches once per 30 s.
      assert.equal((await verifier.verify(await sign(first.kid))).ok, true)
      const { privateKey } = await generateKeyPair('ES256')
      const forged = async (i: number) =>
        new SignJWT({ iss: as.url, aud: audience, sub: 'x', exp: now() + 600 })
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: `unknown-${i}` })
          .sign(privateKey)
      for (let i = 0; i < 20; i++) {
        assertRefused(await verifier.verify(await forged(i)), unknownKey)
        t.mock.timers.tick(1_000)
      }
      // 20 s of unknown kids, starting 0 s after the fetch that found the rotated key: none fetched.
      assert.equal(jwks(), 2)
      t.mock.timers.tick(11_000)
      for (let i = 0; i < 5; i++) assertRefused(await verifier.verify(await forged(100 + i)), unknownKey)
      assert.equal(jwks(), 3, 'past the 30 s, one refetch for five unknown kids')
    } finally {
      await as.close()
    }
  })
})

describe('OAuth when the authorization server cannot be read', () => {
  it('answers 503 (not 401) while discovery fails, and recovers once the issuer is back', async () => {
    const as = await startAuthorizationServer({ withKey: false })
    await as.issuer.keys.generate('RS256')
    const { port } = as.server.address() as AddressInfo
    const token = await requestToken(as, { aud: audience, scope: 'intents:validate' })
    await as.close()
    const verifier = createOAuthVerifier({
      config: readOAuthConfig({ OAUTH_ISSUER: as.url }, { production: false, publicUrl: audience }).value!,
      timeoutMs: 2_000,
    })
    await assert.rejects(verifier.verify(token), (err: unknown) => {
      assert.ok(err instanceof AuthorizationServerUnreachableError)
      assert.equal(getStatusCode(err.status).httpStatus, 503)
      assert.equal(err.headers['retry-after'], '5')
      assert.match(
        err.details!,
        /^could not discover the issuer's key set \(set OAUTH_JWKS_URL to skip discovery\): .*oauth-authorization-server: unreachable; .*openid-configuration: unreachable$/,
      )
      assert.ok(!err.message.includes(token))
      return true
    })
    // The same issuer back on its port: a failed discovery was not remembered.
    await new Promise<void>((resolve) => as.server.listen(port, '127.0.0.1', resolve))
    try {
      assert.equal((await verifier.verify(token)).ok, true)
    } finally {
      await as.close()
    }
  })

  it('refuses a discovery document that names another issuer (RFC 8414 §3.3)', async () => {
    const as = await startAuthorizationServer({ withKey: false })
    try {
      await as.issuer.keys.generate('RS256')
      // Configured with a trailing slash the server does not write: not the same issuer.
      const verifier = createOAuthVerifier({
        config: readOAuthConfig({ OAUTH_ISSUER: `${as.url}/` }, { production: false, publicUrl: audience }).value!,
      })
      const token = await requestToken(
        as,
        { aud: audience },
        (tk) => (asAccessToken(tk), (tk.payload.iss = `${as.url}/`)),
      )
      await assert.rejects(verifier.verify(token), (err: unknown) => {
        assert.ok(err instanceof AuthorizationServerUnreachableError)
        assert.match(err.details!, /openid-configuration: names another issuer$/)
        return true
      })
      assert.equal(as.hits.get('/jwks'), undefined)
    } finally {
      await as.close()
    }
  })

  it('answers 503 when the key set itself cannot be read', async () => {
    const as = await startAuthorizationServer({ withKey: false })
    try {
      await as.issuer.keys.generate('RS256')
      const verifier = createOAuthVerifier({
        config: readOAuthConfig(
          { OAUTH_ISSUER: as.url, OAUTH_JWKS_URL: `${as.url}/no-such-jwks` },
          { production: false, publicUrl: audience },
        ).value!,
      })
      const token = await requestToken(as, { aud: audience })
      await assert.rejects(
        verifier.verify(token),
        (err: unknown) => err instanceof AuthorizationServerUnreachableError && err instanceof GatewayError,
      )
    } finally {
      await as.close()
    }
  })
})
