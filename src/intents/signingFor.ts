// The typed data to sign, for the answers that ask for a signature (0xE4, 0xE5), so that an agent
// can sign and retry without reading the docs.
import type { ChainAdapter, SigningRequest } from '../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../ports/intent.ts'
import { Status } from '../status/statusCodes.ts'

export function signingFor(
  adapter: ChainAdapter,
  intent: Intent,
  status: number,
  account?: AccountMode,
): SigningRequest | undefined {
  return status === Status.SIGNATURE_REQUIRED || status === Status.UNAUTHORIZED
    ? adapter.signingRequest(intent, account)
    : undefined
}
