// The EIP-7702 authorization an EOA signs once to delegate to a chain's IntentAccount, in the
// shape the gateway takes as `authorization` (viem's signAuthorization, numbers as JSON numbers).
import { type Address, getAddress } from 'viem'
import { GatewayClientError } from './gatewayClientError.ts'
import type { IntentAuthorization } from './intentInput.ts'
import type { EvmIntentSigner } from './intentSigner.ts'

export type SignAccountAuthorizationParameters = {
  /** The account's own key: an authorization is valid only when signed by the EOA it delegates. */
  signer: EvmIntentSigner
  /** The chain's numeric id (never 0: an authorization for every chain is refused). */
  chainId: number
  /** The chain's account delegate (GET /chains/{chainId} contracts.accountDelegate). */
  delegate: Address | string
  /** The account's current nonce (its transaction count, GET /accounts/{address} `nonce`). */
  nonce: number | bigint | string
}

export async function signAccountAuthorization({
  signer,
  chainId,
  delegate,
  nonce,
}: SignAccountAuthorizationParameters): Promise<IntentAuthorization> {
  if (!signer.signAuthorization) {
    throw new GatewayClientError(
      'The account cannot sign EIP-7702 authorizations: use a viem LocalAccount (privateKeyToAccount, mnemonicToAccount)',
      { code: 'INVALID_ARGUMENT' },
    )
  }
  if (!Number.isSafeInteger(chainId) || chainId <= 0)
    throw new GatewayClientError(`An authorization names one chain: ${chainId} is not a chain id`, {
      code: 'INVALID_ARGUMENT',
      field: 'chainId',
    })
  const n = Number(nonce)
  if (!Number.isSafeInteger(n) || n < 0 || String(nonce) !== String(n))
    throw new GatewayClientError(`The account nonce ${String(nonce)} is not a non-negative integer`, {
      code: 'INVALID_ARGUMENT',
      field: 'nonce',
    })
  const signed = await signer.signAuthorization({ chainId, address: getAddress(delegate), nonce: n })
  const yParity = signed.yParity ?? (signed.v === undefined ? undefined : Number(signed.v) - 27)
  if (yParity !== 0 && yParity !== 1)
    throw new GatewayClientError('The account signed an authorization without a parity (yParity)', {
      code: 'BAD_RESPONSE',
    })
  return {
    chainId: signed.chainId,
    address: getAddress(signed.address),
    nonce: signed.nonce,
    yParity,
    r: signed.r,
    s: signed.s,
  }
}
