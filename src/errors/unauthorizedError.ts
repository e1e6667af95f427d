// A request without a valid API key (0xE4, 401, with WWW-Authenticate).
import { Status } from '../status/statusCodes.ts'
import { GatewayError } from './gatewayError.ts'

export class UnauthorizedError extends GatewayError {
  override name = 'UnauthorizedError'

  constructor(presented: boolean) {
    super(presented ? 'The API key is not valid' : 'An API key is required', {
      code: 'UNAUTHORIZED',
      status: Status.UNAUTHORIZED,
      details: presented ? 'the bearer token matches no configured API key' : 'send it as Authorization: Bearer <key>',
      headers: {
        'www-authenticate': presented
          ? 'Bearer realm="intent-gateway", error="invalid_token"'
          : 'Bearer realm="intent-gateway"',
      },
    })
  }
}
