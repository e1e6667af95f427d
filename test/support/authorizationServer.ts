// A real OAuth 2.0 authorization server on a local port (oauth2-mock-server: token endpoint,
// discovery document and JWKS over HTTP), counting the requests each of its paths gets, and a
// client-credentials token request against it.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type MutableToken, OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server'

export type AuthorizationServer = {
  issuer: OAuth2Issuer
  service: OAuth2Service
  url: string
  hits: Map<string, number>
  server: Server
  close(): Promise<void>
}

/** `withKey: false` starts it with an empty key set (a test that publishes its own keys, or rotates them). */
export async function startAuthorizationServer({
  withKey = true,
}: {
  withKey?: boolean
} = {}): Promise<AuthorizationServer> {
  const issuer = new OAuth2Issuer()
  const service = new OAuth2Service(issuer)
  const hits = new Map<string, number>()
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!
    hits.set(path, (hits.get(path) ?? 0) + 1)
    service.requestHandler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  issuer.url = url
  if (withKey) await issuer.keys.generate('RS256')
  return {
    issuer,
    service,
    url,
    hits,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** RFC 9068: what a conforming authorization server puts in an access token's header and claims. */
export function asAccessToken(token: MutableToken, sub = 'agent-7'): void {
  token.header.typ = 'at+jwt'
  token.payload.sub = sub
}

/** Asks the token endpoint (client credentials) for an access token; `tweak` edits it before it is signed. */
export async function requestToken(
  as: AuthorizationServer,
  body: Record<string, string>,
  tweak: (token: MutableToken) => void = (t) => asAccessToken(t),
): Promise<string> {
  as.service.once('beforeTokenSigning', tweak)
  const response = await fetch(`${as.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...body }),
  })
  assert.equal(response.status, 200)
  return ((await response.json()) as { access_token: string }).access_token
}
