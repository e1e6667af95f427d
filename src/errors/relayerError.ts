// The relayer could not get a transaction to the chain (0xF0, 502): nothing was sent.
import { Status } from '../status/statusCodes.ts'
import { GatewayError } from './gatewayError.ts'

export class RelayerError extends GatewayError {
  override name = 'RelayerError'

  constructor(shortMessage: string, params: { cause?: unknown; details?: string | undefined } = {}) {
    super(shortMessage, { code: 'RELAYER_FAILED', status: Status.GATEWAY_FAILURE, ...params })
  }
}
