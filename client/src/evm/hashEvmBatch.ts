// X-Intent-Hash of a batch: keccak256(abi.encode(BatchIntent)), the hash IntentAccount's
// executeBatch emits in IntentExecuted (docs/api-contract.md §3, §9).
import { encodeAbiParameters, type Hex, keccak256 } from 'viem'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { BatchIntentBody } from '../intentInput.ts'
import { batchIntentTypes } from './batchIntentTypes.ts'
import { toEvmBatch } from './toEvmBatch.ts'

const batchTuple = {
  type: 'tuple',
  components: [
    { name: 'sender', type: 'address' },
    { name: 'calls', type: 'tuple[]', components: batchIntentTypes.Call },
    { name: 'nonce', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'policyId', type: 'bytes32' },
  ],
} as const

export function hashEvmBatch(body: BatchIntentBody): Hex {
  try {
    return keccak256(encodeAbiParameters([batchTuple], [toEvmBatch(body)]))
  } catch (err) {
    throw new GatewayClientError('The batch cannot be ABI-encoded for an EVM chain', {
      code: 'INVALID_INTENT',
      details: (err as { shortMessage?: string }).shortMessage ?? String(err),
      cause: err,
    })
  }
}
