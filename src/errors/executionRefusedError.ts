// An execution refused at the last moment, before its signature: simulated again because the
// simulation it was prepared on no longer held (executionOrder.ts), it no longer passes. Nothing
// was signed or sent; the execute answers the refusal as prepareExecution would have, not a 5xx.
import { GatewayError } from './gatewayError.ts'

export class ExecutionRefusedError extends GatewayError {
  override name = 'ExecutionRefusedError'

  constructor(status: number, detail: string | undefined) {
    super('The execution was refused when simulated again before its signature; nothing was sent', {
      code: 'EXECUTION_REFUSED',
      status,
      details: detail,
    })
  }
}
