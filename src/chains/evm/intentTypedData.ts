// The EIP-712 typed data a sender (or a delegate of its policy) signs to authorize an intent on the
// reference executor: the same domain and struct the contract hashes in `signingHash`.
import type { Address, TypedDataDomain } from 'viem'
import type { Intent } from '../../ports/intent.ts'
import { toIntentTuple } from './evmRuntime.ts'

export const intentTypes = {
  Intent: [
    { name: 'sender', type: 'address' },
    { name: 'target', type: 'address' },
    { name: 'data', type: 'bytes' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'policyId', type: 'bytes32' },
  ],
} as const

export function intentDomain({ chainId, executor }: { chainId: number; executor: Address }) {
  return { name: 'IntentExecutor', version: '1', chainId, verifyingContract: executor } as const satisfies TypedDataDomain
}

/** What viem's `signTypedData` takes: `account.signTypedData(intentTypedData({ chainId, executor, intent }))`. */
export function intentTypedData({ chainId, executor, intent }: { chainId: number; executor: Address; intent: Intent }) {
  return {
    domain: intentDomain({ chainId, executor }),
    types: intentTypes,
    primaryType: 'Intent',
    message: toIntentTuple(intent),
  } as const
}
