// A claim withdrawn by its creator (MCP tasks/cancel) before anything was signed: the journal's
// recordSigned finds no record, the relayer never broadcasts the transaction it signed (it closes
// the nonce instead), and the execute that held the claim answers this, not a 500.
import { Status } from '../status/statusCodes.ts'
import { GatewayError } from './gatewayError.ts'

export class ClaimWithdrawnError extends GatewayError {
  override name = 'ClaimWithdrawnError'

  constructor(recordId: number) {
    super('The execution was cancelled by its creator before anything was signed; nothing was sent', {
      code: 'CLAIM_WITHDRAWN',
      status: Status.DISALLOWED,
      details: `journal record ${recordId} was withdrawn (MCP tasks/cancel)`,
    })
  }
}
