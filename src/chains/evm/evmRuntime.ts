// EVM addresses and the EVM intent hash: keccak256(abi.encode(Intent)), the hash the executor
// emits in IntentExecuted, so an agent can match X-Intent-Hash against the event.
import { type Address, type Hex, encodeAbiParameters, isAddress } from 'viem'
import { keccak256 } from '../../crypto/keccak256.ts'
import type { Intent } from '../../intents/intent.ts'
import { refuseAccountMetas } from '../../intents/refuseAccountMetas.ts'
import type { ChainRuntime } from '../chainRuntime.ts'
import { intentAbiParameter } from './intentAbi.ts'

export const evmRuntime: ChainRuntime = {
  chainType: 'evm',
  checkAddress(value) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return 'must be an address: 0x followed by 40 hex digits'
    if (!isAddress(value, { strict: true })) return 'has mixed case but is not a valid EIP-55 checksum'
    return undefined
  },
  checkIntent(intent) {
    // The schema's decimal strings below 2^256 are exactly the EVM's uint256.
    return refuseAccountMetas(intent, 'EVM chains')
  },
  hashIntent(intent) {
    return keccak256(encodeIntent(intent))
  },
}

const encodings = new WeakMap<Intent, Hex>()

/**
 * abi.encode(intent), once per intent object: it is both what the hash covers and, after the
 * 4-byte selector, the calldata of canExecute(intent) and execute(intent).
 */
export function encodeIntent(intent: Intent): Hex {
  let encoded = encodings.get(intent)
  if (!encoded) {
    encoded = encodeAbiParameters([intentAbiParameter], [toIntentTuple(intent)])
    encodings.set(intent, encoded)
  }
  return encoded
}

export function toIntentTuple(intent: Intent) {
  return {
    sender: intent.sender as Address,
    target: intent.target as Address,
    data: intent.data,
    value: intent.value,
    nonce: intent.nonce,
    validAfter: intent.validAfter,
    validBefore: intent.validBefore,
    policyId: intent.policyId,
  }
}
