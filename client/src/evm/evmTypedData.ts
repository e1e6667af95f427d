// The EIP-712 typed data a sender signs on an EVM chain, from the domain the gateway describes
// for that chain (GET /chains/{chainId}, `signing.domain`).
import { type Address, getAddress } from 'viem'
import type { ChainDescription } from '../chainDescription.ts'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { IntentBody } from '../intentInput.ts'
import { intentTypes } from './intentTypes.ts'
import { toEvmIntent } from './toEvmIntent.ts'

export function evmTypedData(body: IntentBody, chain: Pick<ChainDescription, 'chainId' | 'signing'>) {
  const domain = chain.signing?.domain
  if (!domain) throw new GatewayClientError(`Chain ${chain.chainId} describes no EIP-712 domain`, { code: 'INVALID_ARGUMENT' })
  return {
    domain: { name: domain.name, version: domain.version, chainId: Number(domain.chainId), verifyingContract: getAddress(domain.verifyingContract) as Address },
    types: intentTypes,
    primaryType: 'Intent',
    message: toEvmIntent(body),
  } as const
}
