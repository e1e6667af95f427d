// OAuth 2.1 access tokens on a real gateway, chain and authorization server (issue 42 item 2,
// oauth2-mock-server on a local port): a good token executes and validates as its own client
// (the journal's owner, the rate limit's key, priced as an API key); every expired, misdirected,
// foreign or under-scoped token is refused with the RFC 6750 error and WWW-Authenticate, and
// nothing runs: no journal claim, no transaction, no 402 offer, no charge, even with a valid
// payment attached. The metadata document is served; an API key still works beside OAuth; /mcp
// asks for a credential the way MCP hosts start their OAuth flow; an unreachable issuer is a 503;
// no token is ever logged.
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { type OAuthConfig, readOAuthConfig } from '../../src/config/oauthConfig.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import {
  type AuthorizationServer,
  asAccessToken,
  requestToken,
  startAuthorizationServer,
} from '../support/authorizationServer.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { demoIntent, post, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const audience = 'https://gateway.example'
const metadataUrl = `${audience}/.well-known/oauth-protected-resource`
const apiKey = 'operator-key-0123456789abcdef'
const now = () => Math.floor(Date.now() / 1000)
const challenge = (error: string, description: string, scope?: string) =>
  `Bearer realm="intent-gateway", error="${error}", error_description="${description}"${scope ? `, scope="${scope}"` : ''}, resource_metadata="${metadataUrl}"`
const wrongAudience =
  "the token's audience is not this gateway (ask for it with resource set to this gateway's URL, RFC 8707)"

describe('OAuth access tokens on the gateway', () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  let as: AuthorizationServer
  let other: AuthorizationServer
  let oauth: OAuthConfig
  let gateway: TestGateway
  let limited: TestGateway
  const tokens: string[] = []
  const issued = async (...args: Parameters<typeof requestToken>) => {
    const token = await requestToken(...args)
    tokens.push(token)
    return token
  }
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const relayerNonce = () => clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    as = await startAuthorizationServer()
    other = await startAuthorizationServer()
    const read = readOAuthConfig(
      { OAUTH_ISSUER: as.url, OAUTH_AUDIENCE: audience },
      { production: false, publicUrl: undefined },
    )
    assert.deepEqual(read.problems, [])
    oauth = read.value!
    // Execute priced on the devnet chain: a keyless request is offered a payment (402), so a refused token that were let through would show.
    gateway = await startTestGateway({
      chains: [devnet.chain],
      payments: devnet.payments,
      auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
      oauth,
    })
    limited = await startTestGateway({ chains: [devnet.chain], oauth, rateLimit: { max: 2, windowMs: 60_000 } })
  })
  after(async () => {
    await limited?.close()
    await gateway?.close()
    await as?.close()
    await other?.close()
    await devnet?.stop()
    // No token, nor any part of one, in any log line of either gateway.
    const logs = [...(gateway?.logs ?? []), ...(limited?.logs ?? [])]
    assert.ok(logs.length > 0)
    for (const token of tokens) {
      for (const part of [token, ...token.split('.').filter((p) => p.length > 16)])
        assert.ok(!logs.some((line) => line.includes(part)), 'a token (or a part of one) was logged')
    }
  })

  it('serves the protected resource metadata (RFC 9728) at its well-known URL', async () => {
    const res = await request(gateway.baseUrl, '/.well-known/oauth-protected-resource')
    assert.equal(res.status, 200, res.text)
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
    assert.deepEqual(res.body, {
      resource: audience,
      authorization_servers: [as.url],
      scopes_supported: ['intents:validate', 'intents:execute', 'ops:read', 'ops:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Intent Gateway',
    })
    assert.equal(
      (await request(gateway.baseUrl, '/.well-known/oauth-protected-resource', { method: 'POST' })).status,
      405,
    )
  })

  it('executes with a good token: 200, the journal owned by oauth:<iss>#<sub>, priced as an API key (no 402, no charge), the identity logged, not the token', async () => {
    const token = await issued(as, { aud: audience, scope: 'intents:execute' })
    const payerBefore = await balanceOf(payer)
    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '500' }),
      bearer(token),
    )
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11' })
    assert.equal(res.headers.get('payment-response'), null)
    assert.equal(await balanceOf(payer), payerBefore)
    const record = await gateway.journal.get(res.headers.get('x-intent-hash') as Hex)
    assert.equal(record?.apiKeyId, `oauth:${as.url}#agent-7`)
    assert.ok(gateway.logs.some((line) => line.includes(`"key":"oauth:${as.url}#agent-7"`)))
  })

  it('validates with a token granting intents:validate; a token without it is refused 403 insufficient_scope there', async () => {
    const token = await issued(as, { aud: audience, scope: 'intents:validate' })
    const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet), bearer(token))
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x01' })
    const executeOnly = await issued(as, { aud: audience, scope: 'intents:execute' })
    const refused = await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet), bearer(executeOnly))
    assert.equal(refused.status, 403)
    assertCommonHeaders(refused, { status: '0x15' })
    assert.equal(
      refused.headers.get('www-authenticate'),
      challenge(
        'insufficient_scope',
        'the token does not grant the intents:validate scope this request needs',
        'intents:validate',
      ),
    )
    // Validate stays open without a credential (REQUIRE_API_KEY_FOR_VALIDATE unset).
    assert.equal((await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))).status, 200)
  })

  it('refuses an expired token, a wrong audience, a wrong issuer, a token for another resource, an ID token and one lacking intents:execute: the RFC error, and nothing run or charged though a valid payment is attached', async () => {
    // Each challenge names the route's scope: what a client asks its next token for.
    const cases: Array<[string, string, number, string, string, string]> = [
      [
        'expired',
        await issued(
          as,
          { aud: audience, scope: 'intents:execute' },
          (t) => (asAccessToken(t), (t.payload.exp = now() - 61)),
        ),
        401,
        'invalid_token',
        'the token has expired',
        'intents:execute',
      ],
      [
        'wrong audience (the client id)',
        await issued(as, { aud: 'agent-client', scope: 'intents:execute' }),
        401,
        'invalid_token',
        wrongAudience,
        'intents:execute',
      ],
      [
        'another resource (RFC 8707)',
        await issued(as, { aud: 'https://another-resource.example/mcp', scope: 'intents:execute' }),
        401,
        'invalid_token',
        wrongAudience,
        'intents:execute',
      ],
      [
        'wrong issuer (its own key)',
        await issued(other, { aud: audience, scope: 'intents:execute' }),
        401,
        'invalid_token',
        "the token is not signed with a key of the issuer's key set",
        'intents:execute',
      ],
      [
        'wrong issuer (our key, iss renamed)',
        await issued(
          as,
          { aud: audience, scope: 'intents:execute' },
          (t) => (asAccessToken(t), (t.payload.iss = other.url)),
        ),
        401,
        'invalid_token',
        'the token was not issued by the configured issuer',
        'intents:execute',
      ],
      [
        'an ID token (typ JWT)',
        await issued(
          as,
          { aud: audience, scope: 'intents:execute' },
          (t) => (asAccessToken(t), (t.header.typ = 'JWT')),
        ),
        401,
        'invalid_token',
        'not an access token: its typ header must be at+jwt (RFC 9068); ID tokens are refused',
        'intents:execute',
      ],
      [
        'lacking intents:execute',
        await issued(as, { aud: audience, scope: 'intents:validate ops:write' }),
        403,
        'insufficient_scope',
        'the token does not grant the intents:execute scope this request needs',
        'intents:execute',
      ],
    ]
    const [nonceBefore, payerBefore] = [await relayerNonce(), await balanceOf(payer)]
    let n = 510
    for (const [name, token, httpStatus, error, description, scope] of cases) {
      const intent = await signedIntent(devnet, { nonce: String(n++) })
      // A payment good for this very intent: were the token ignored, it would run and be charged.
      const offer = await post(gateway.baseUrl, '/intents/execute', intent)
      assert.equal(offer.status, 402, name)
      const payment = await payingClient(devnet).client.createPaymentPayload(
        decodePaymentRequiredHeader(offer.headers.get('payment-required')!),
      )
      const res = await post(gateway.baseUrl, '/intents/execute', intent, {
        ...bearer(token),
        'payment-signature': encodePaymentSignatureHeader(payment),
      })
      assert.equal(res.status, httpStatus, `${name}: ${res.text}`)
      assertCommonHeaders(res, { status: httpStatus === 401 ? '0xE4' : '0x15' })
      assert.equal(res.headers.get('www-authenticate'), challenge(error, description, scope), name)
      assert.equal(res.body.detail, description, name)
      assert.equal(res.headers.get('payment-required'), null, `${name}: no 402 offer`)
      assert.equal(res.headers.get('payment-response'), null, name)
      assert.equal(
        await gateway.journal.get(res.headers.get('x-intent-hash') as Hex),
        undefined,
        `${name}: no journal claim`,
      )
      assert.ok(!res.text.includes(token), name)
    }
    assert.equal(await relayerNonce(), nonceBefore, 'no transaction')
    assert.equal(await balanceOf(payer), payerBefore, 'nothing charged')
  })

  it('names what is missing: no credential is 401 with the challenge and no error code, a malformed header 400 naming Authorization', async () => {
    const missing = await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet), {})
    assert.equal(missing.status, 200, 'validate is open')
    const limitedExecute = await post(limited.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '530' }))
    assert.equal(limitedExecute.status, 401)
    assertCommonHeaders(limitedExecute, { status: '0xE4' })
    assert.equal(
      limitedExecute.headers.get('www-authenticate'),
      `Bearer realm="intent-gateway", scope="intents:execute", resource_metadata="${metadataUrl}"`,
    )
    assert.equal(limitedExecute.body.title, 'A credential is required')
    const malformed = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '531' }), {
      authorization: 'Bearer two tokens',
    })
    assert.equal(malformed.status, 400)
    assert.deepEqual(
      malformed.body.errors.map((e: { field: string }) => e.field),
      ['Authorization'],
    )
    assert.match(malformed.headers.get('www-authenticate') ?? '', /error="invalid_request"/)
  })

  it('still takes an API key beside OAuth (checked first, never sent to the issuer)', async () => {
    const jwksBefore = as.hits.get('/jwks')
    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '540' }),
      bearer(apiKey),
    )
    assert.equal(res.status, 200, res.text)
    const record = await gateway.journal.get(res.headers.get('x-intent-hash') as Hex)
    assert.equal(record?.apiKeyId, hashApiKey(apiKey).toString('hex').slice(0, 8))
    assert.equal(as.hits.get('/jwks'), jwksBefore)
    const wrong = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '541' }),
      bearer('not-the-operator-key-000000'),
    )
    assert.equal(wrong.status, 401)
    assert.equal(
      wrong.headers.get('www-authenticate'),
      challenge('invalid_token', 'not a signed JWT access token (three base64url parts)', 'intents:execute'),
    )
  })

  it('counts each OAuth identity as its own client in the rate limit, apart from its address', async () => {
    const [first, second] = [
      await issued(as, { aud: audience, scope: 'intents:validate' }, (t) => asAccessToken(t, 'limited-a')),
      await issued(as, { aud: audience, scope: 'intents:validate' }, (t) => asAccessToken(t, 'limited-b')),
    ]
    for (let i = 0; i < 2; i++)
      assert.equal((await post(limited.baseUrl, '/intents/validate', demoIntent(devnet), bearer(first))).status, 200)
    const over = await post(limited.baseUrl, '/intents/validate', demoIntent(devnet), bearer(first))
    assert.equal(over.status, 429)
    assertCommonHeaders(over, { status: '0xF6' })
    // Same address, another subject: a budget of its own; and the address's own budget is untouched.
    assert.equal((await post(limited.baseUrl, '/intents/validate', demoIntent(devnet), bearer(second))).status, 200)
    assert.equal((await post(limited.baseUrl, '/intents/validate', demoIntent(devnet))).status, 200)
  })

  it('asks for a credential on /mcp with the metadata URL (how MCP hosts start their OAuth flow), and serves a token holder', async () => {
    const rawMcp = (headers: Record<string, string>) =>
      request(gateway.baseUrl, '/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    const anonymous = await rawMcp({})
    assert.equal(anonymous.status, 401)
    assert.equal(
      anonymous.headers.get('www-authenticate'),
      `Bearer realm="intent-gateway", scope="intents:validate intents:execute", resource_metadata="${metadataUrl}"`,
    )
    const expired = await rawMcp(
      bearer(await issued(as, { aud: audience }, (t) => (asAccessToken(t), (t.payload.exp = now() - 61)))),
    )
    assert.equal(expired.status, 401)
    assert.equal(
      expired.headers.get('www-authenticate'),
      challenge('invalid_token', 'the token has expired', 'intents:validate intents:execute'),
    )
    const served = await rawMcp(bearer(await issued(as, { aud: audience, scope: 'intents:validate' })))
    assert.equal(served.status, 200, served.text)
    assert.ok(served.body.result.tools.some((t: { name: string }) => t.name === 'execute_intent'))
  })

  it('answers 503 (0x40) with Retry-After while the issuer cannot be reached, running nothing; an API key still works', async () => {
    // A port nothing listens on.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
    const down = readOAuthConfig(
      { OAUTH_ISSUER: `http://127.0.0.1:${port}`, OAUTH_AUDIENCE: audience },
      { production: false, publicUrl: undefined },
    ).value!
    const unreachable = await startTestGateway({
      chains: [devnet.chain],
      auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
      oauth: down,
    })
    try {
      const token = await issued(as, { aud: audience, scope: 'intents:execute' })
      const nonceBefore = await relayerNonce()
      const res = await post(
        unreachable.baseUrl,
        '/intents/execute',
        await signedIntent(devnet, { nonce: '550' }),
        bearer(token),
      )
      assert.equal(res.status, 503, res.text)
      assertCommonHeaders(res, { status: '0x40' })
      assert.equal(res.headers.get('retry-after'), '5')
      assert.equal(res.body.title, 'The OAuth authorization server is unreachable')
      assert.equal(await unreachable.journal.get(res.headers.get('x-intent-hash') as Hex), undefined)
      assert.equal(await relayerNonce(), nonceBefore)
      assert.equal(
        (
          await post(
            unreachable.baseUrl,
            '/intents/execute',
            await signedIntent(devnet, { nonce: '551' }),
            bearer(apiKey),
          )
        ).status,
        200,
      )
      for (const part of token.split('.').filter((p) => p.length > 16))
        assert.ok(!unreachable.logs.some((line) => line.includes(part)), 'a token part was logged')
    } finally {
      await unreachable.close()
    }
  })
})
