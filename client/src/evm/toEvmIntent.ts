// The wire intent as the typed values viem encodes and signs.
import type { Address, Hex } from 'viem'
import type { IntentBody } from '../intentInput.ts'

export type EvmIntent = {
  sender: Address
  target: Address
  data: Hex
  value: bigint
  nonce: bigint
  validAfter: bigint
  validBefore: bigint
  policyId: Hex
}

export function toEvmIntent(body: IntentBody): EvmIntent {
  return {
    sender: body.sender as Address,
    target: body.target as Address,
    data: body.data,
    value: BigInt(body.value),
    nonce: BigInt(body.nonce),
    validAfter: BigInt(body.validAfter),
    validBefore: BigInt(body.validBefore),
    policyId: body.policyId,
  }
}
