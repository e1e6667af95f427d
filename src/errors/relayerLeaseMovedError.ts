// A signed transaction the journal would not record: the relayer key was no longer leased to this
// instance under the epoch it was signed under (another instance may have sent at its nonce since).
// Nothing was recorded or sent; the claim goes back and the agent is told to retry (503).
import { Status } from '../status/statusCodes.ts'
import { GatewayError } from './gatewayError.ts'

export class RelayerLeaseMovedError extends GatewayError {
  override name = 'RelayerLeaseMovedError'

  constructor(chainId: string, relayer: string, epoch: number | undefined) {
    super('The relayer key passed to another instance before the transaction was journaled; nothing was sent', {
      // The code of a key not held (executeIntent answers it as no relayer key: 503, Retry-After).
      code: 'RELAYER_UNAVAILABLE',
      status: Status.UNAVAILABLE,
      details:
        epoch === undefined
          ? `relayer ${relayer} on ${chainId} is not leased to this instance`
          : `relayer ${relayer} on ${chainId} is no longer leased to this instance under epoch ${epoch}`,
      headers: { 'retry-after': '2' },
    })
  }
}
