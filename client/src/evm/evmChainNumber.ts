// An EVM chain's numeric id (what an authorization and the account domain name), from its
// description: the EIP-712 domain's chainId, else its CAIP-2 reference.
import type { ChainDescription } from '../chainDescription.ts'
import { GatewayClientError } from '../gatewayClientError.ts'

export function evmChainNumber(
  chain: Pick<ChainDescription, 'chainId' | 'signing'> & { reference?: string | undefined },
): number {
  for (const candidate of [chain.signing?.domain?.chainId, chain.reference, chain.chainId.replace(/^eip155:/, '')]) {
    if (candidate !== undefined && /^[1-9][0-9]*$/.test(String(candidate)) && Number.isSafeInteger(Number(candidate)))
      return Number(candidate)
  }
  throw new GatewayClientError(
    `Chain ${chain.chainId} has no EVM chain id to sign account-mode intents and authorizations for`,
    { code: 'INVALID_ARGUMENT' },
  )
}
