// How the client pays the gateway's x402 prices (docs/api-contract.md §10): through @x402/fetch, with
// the `exact` EVM scheme and x402's spend controls.
import type { SpendControls, x402Client } from '@x402/core/client'
import type { ClientEvmSigner } from '@x402/evm'

export type PaymentOptions = {
  /** The payer's EVM account (a viem LocalAccount): signs EIP-3009 authorizations for `exact` prices. */
  signer?: ClientEvmSigner
  /** CAIP-2 networks the signer pays on (default: every eip155 network). */
  networks?: `${string}:${string}`[]
  /**
   * Spend limits, checked by x402 before anything is signed. Default x402's: its known default
   * assets only, at most $1 a payment. Name other tokens in `allowedAssets` with a
   * `maxAmountPerPayment` in atomic units; `false` turns every limit off.
   */
  spendControls?: SpendControls | false
  /** A ready x402 client instead (its schemes, policies and spend controls as given). */
  x402Client?: x402Client
}
