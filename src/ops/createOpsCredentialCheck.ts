// Who may use the console: an operator's key (OPS_API_KEYS, read and write) or, with OAuth on, a
// token granting ops:read (the page, its state and feed) or ops:write (the switches). An agent's
// API key is refused (403) even when it is valid for the intent routes: agents never see or move
// the gateway's controls. Nothing else is accepted: no cookie, no key in the URL.
import type { FastifyRequest } from 'fastify'
import { type ApiKeyCheck, createApiKeyCheck } from '../auth/createApiKeyCheck.ts'
import type { OAuthVerifier } from '../auth/createOAuthVerifier.ts'
import { GatewayError } from '../errors/gatewayError.ts'
import { Status } from '../status/statusCodes.ts'

export type OpsAccess = 'ops:read' | 'ops:write'

export type OpsCaller = { actor: string }

export type OpsCredentialCheck = (request: FastifyRequest, access: OpsAccess) => Promise<OpsCaller>

export type CreateOpsCredentialCheckParameters = {
  /** OPS_API_KEYS' hashes. */
  keyHashes: readonly Buffer[]
  /** The agents' keys (API_KEYS): told apart only to answer 403 rather than 401. */
  agentKeys?: ApiKeyCheck | undefined
  oauth?: OAuthVerifier | undefined
}

const challenge = 'Bearer realm="intent-gateway-ops"'

export function createOpsCredentialCheck({
  keyHashes,
  agentKeys,
  oauth,
}: CreateOpsCredentialCheckParameters): OpsCredentialCheck {
  const keys = createApiKeyCheck([...keyHashes])
  return async (request, access) => {
    const header = request.headers.authorization
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!match)
      throw refusal(
        401,
        header === undefined
          ? 'An operator credential is required'
          : 'The Authorization header must be Bearer followed by one token',
        'send Authorization: Bearer <an OPS_API_KEYS key or a token granting ops:read / ops:write>',
        access,
      )
    const token = match[1]!
    const id = keys.identify(token)
    // An operator's key may read and act.
    if (id !== undefined) return { actor: `ops:${id}` }
    if (agentKeys?.identify(token) !== undefined)
      throw refusal(
        403,
        "An agent's API key does not open the operator console",
        `the console needs an OPS_API_KEYS key or a token granting ${access}`,
        access,
      )
    if (oauth) {
      const verified = await oauth.verify(token)
      if (verified.ok) {
        if (!verified.identity.scopes.includes(access))
          throw refusal(
            403,
            `The token does not grant ${access}`,
            `the console's ${access === 'ops:write' ? 'switches need' : 'page needs'} the ${access} scope`,
            access,
            'insufficient_scope',
          )
        return { actor: verified.identity.id }
      }
    }
    throw refusal(
      401,
      'The operator credential is not valid',
      'the bearer token is no OPS_API_KEYS key (nor a valid access token)',
      access,
      'invalid_token',
    )
  }
}

function refusal(
  httpStatus: 401 | 403,
  title: string,
  details: string,
  scope: OpsAccess,
  error?: string,
): GatewayError {
  return new GatewayError(title, {
    code: httpStatus === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
    status: httpStatus === 401 ? Status.UNAUTHORIZED : Status.DISALLOWED,
    details,
    headers: { 'www-authenticate': `${challenge}${error ? `, error="${error}"` : ''}, scope="${scope}"` },
  })
}
