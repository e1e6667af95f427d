// A request the gateway cannot act on: the HTTP layer answers 4xx with the fields named.
import { Status } from '../status/statusCodes.ts'
import { GatewayError } from './gatewayError.ts'

export type FieldError = { field: string; message: string }

export class InputError extends GatewayError {
  override name = 'InputError'
  readonly errors: FieldError[]
  /** HTTP status for transport-level problems that keep their own status (413, 415, 404 ...). */
  readonly httpStatus: number | undefined

  constructor(
    shortMessage: string,
    params: { errors?: FieldError[]; status?: number; httpStatus?: number; headers?: Record<string, string> } = {},
  ) {
    super(shortMessage, {
      code: 'INVALID_REQUEST',
      status: params.status ?? Status.INVALID_FORMAT,
      details: params.errors?.map((e) => `${e.field}: ${e.message}`).join('; '),
      ...(params.headers ? { headers: params.headers } : {}),
    })
    this.errors = params.errors ?? []
    this.httpStatus = params.httpStatus
  }
}
