// The wire batch as the typed values viem encodes and signs.
import type { Address, Hex } from 'viem'
import type { BatchIntentBody } from '../intentInput.ts'

export type EvmCall = { target: Address; value: bigint; data: Hex }
export type EvmBatchIntent = {
  sender: Address
  calls: EvmCall[]
  nonce: bigint
  validAfter: bigint
  validBefore: bigint
  policyId: Hex
}

export function toEvmBatch(body: BatchIntentBody): EvmBatchIntent {
  return {
    sender: body.sender as Address,
    calls: body.calls.map((call) => ({ target: call.target as Address, value: BigInt(call.value), data: call.data })),
    nonce: BigInt(body.nonce),
    validAfter: BigInt(body.validAfter),
    validBefore: BigInt(body.validBefore),
    policyId: body.policyId,
  }
}
