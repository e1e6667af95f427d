// The EIP-712 typed data a sender (or a delegate of its policy) signs to authorize an intent on the
// reference executor: the same domain and struct the contract hashes in `signingHash`.
import { type Address, getAddress, type TypedDataDomain } from 'viem'
import type { Intent } from '../../ports/intent.ts'
import { toBatchTuple } from './encodeBatchIntent.ts'
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

/** The EIP712Domain type of the domains below, as wallets' eth_signTypedData_v4 wants it listed in `types`. */
export const eip712DomainTypes = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

export function intentDomain({ chainId, executor }: { chainId: number; executor: Address }) {
  return {
    name: 'IntentExecutor',
    version: '1',
    chainId,
    verifyingContract: executor,
  } as const satisfies TypedDataDomain
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

/** Account mode's batch: BatchIntent(address sender,Call[] calls,uint256 nonce,uint256 validAfter,uint256 validBefore,bytes32 policyId), as IntentAccount hashes it. */
export const batchIntentTypes = {
  BatchIntent: [
    { name: 'sender', type: 'address' },
    { name: 'calls', type: 'Call[]' },
    { name: 'nonce', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'policyId', type: 'bytes32' },
  ],
  Call: [
    { name: 'target', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
} as const

/** The account's own domain: { name: "IntentAccount", version: "1", chainId, verifyingContract: the account }. */
export function accountDomain({ chainId, account }: { chainId: number; account: Address }) {
  return { name: 'IntentAccount', version: '1', chainId, verifyingContract: account } as const satisfies TypedDataDomain
}

/** What viem's `signTypedData` takes for an account-mode intent: a batch's BatchIntent, or a single call's Intent, under the account's domain. */
export function accountTypedData({ chainId, intent }: { chainId: number; intent: Intent }) {
  const domain = accountDomain({ chainId, account: getAddress(intent.sender) })
  if (!intent.calls)
    return { domain, types: intentTypes, primaryType: 'Intent', message: toIntentTuple(intent) } as const
  return { domain, types: batchIntentTypes, primaryType: 'BatchIntent', message: toBatchTuple(intent) } as const
}
