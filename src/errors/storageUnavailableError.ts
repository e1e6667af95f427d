// The journal's database could not be reached: nothing that needs the journal is done (no
// execution is sent without its record), and the request is answered 503 (0x40, unavailable)
// with Retry-After, for the client to try again.

import { Status } from '../status/statusCodes.ts'
import { GatewayError } from './gatewayError.ts'

export class StorageUnavailableError extends GatewayError {
  override name = 'StorageUnavailableError'

  constructor(shortMessage = 'The journal database is unreachable', params: { cause?: unknown } = {}) {
    super(shortMessage, {
      code: 'STORAGE_UNAVAILABLE',
      status: Status.UNAVAILABLE,
      cause: params.cause,
      details: 'no execution is sent without its journal record; try again shortly',
      headers: { 'retry-after': '5' },
    })
  }
}
