// X-Intent-Hash on EVM chains: keccak256(abi.encode(Intent)), the hash IntentExecuted emits.
import { encodeAbiParameters, type Hex, keccak256 } from 'viem'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { IntentBody } from '../intentInput.ts'
import { intentTypes } from './intentTypes.ts'
import { toEvmIntent } from './toEvmIntent.ts'

const intentTuple = { type: 'tuple', components: intentTypes.Intent } as const

export function hashEvmIntent(body: IntentBody): Hex {
  try {
    return keccak256(encodeAbiParameters([intentTuple], [toEvmIntent(body)]))
  } catch (err) {
    throw new GatewayClientError('The intent cannot be ABI-encoded for an EVM chain', {
      code: 'INVALID_INTENT',
      details: (err as { shortMessage?: string }).shortMessage ?? String(err),
      cause: err,
    })
  }
}
