// The OAuth authorization server's metadata or key set could not be read: a token cannot be
// checked either way, so the request is answered 503 (0x40) with Retry-After, not 401: the
// client's token may well be good.
import { GatewayError } from '../errors/gatewayError.ts'
import { Status } from '../status/statusCodes.ts'

export class AuthorizationServerUnreachableError extends GatewayError {
  override name = 'AuthorizationServerUnreachableError'

  constructor(details: string, params: { cause?: unknown } = {}) {
    super('The OAuth authorization server is unreachable', {
      code: 'AUTHORIZATION_SERVER_UNREACHABLE',
      status: Status.UNAVAILABLE,
      cause: params.cause,
      details,
      headers: { 'retry-after': '5' },
    })
  }
}
