// EVM addresses and the EVM intent hash: keccak256(abi.encode(Intent)) (a batch's: of its
// BatchIntent), the hash the executor or the account emits in IntentExecuted, so an agent can
// match X-Intent-Hash against the event.
import { type Address, type Hex, isAddress } from 'viem'
import { keccak256 } from '../../crypto/keccak256.ts'
import type { ChainRuntime } from '../../ports/chainRuntime.ts'
import type { Intent } from '../../ports/intent.ts'
import { refuseAccountMetas } from '../refuseAccountMetas.ts'
import { encodeBatchIntent } from './encodeBatchIntent.ts'
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
    // A batch: keccak256(abi.encode(BatchIntent)), the hash the account's IntentExecuted carries.
    return keccak256(intent.calls ? encodeBatchIntent(intent) : encodeIntent(intent))
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
    encoded = encodeIntentWords(intent)
    encodings.set(intent, encoded)
  }
  return encoded
}

// The tuple's layout, written out: viem's general encoder walks the ABI for every request and cost
// ~9% of a validate's CPU. The field list is checked against the compiled ABI when this loads, and
// a property test compares the two encoders.
const layout = [
  'sender:address',
  'target:address',
  'data:bytes',
  'value:uint256',
  'nonce:uint256',
  'validAfter:uint256',
  'validBefore:uint256',
  'policyId:bytes32',
]
const compiled = (intentAbiParameter as { components?: readonly { name?: string; type: string }[] }).components?.map(
  (c) => `${c.name}:${c.type}`,
)
if (compiled?.join() !== layout.join())
  throw new Error(`the Intent ABI changed (${compiled?.join()}): update encodeIntentWords`)

const zeros = '0'.repeat(64)
const word = (hex: string) => zeros.slice(hex.length) + hex
/** The tuple's offset, then its 8 head words (data's offset is 8 words), then data's length and padded bytes. */
const prelude = word('20')
const dataOffset = word((8 * 32).toString(16))

function encodeIntentWords(intent: Intent): Hex {
  const data = intent.data.slice(2)
  const tailPad = (64 - (data.length % 64)) % 64
  return `0x${prelude}${word(intent.sender.slice(2).toLowerCase())}${word(intent.target.slice(2).toLowerCase())}${dataOffset}${word(intent.value.toString(16))}${word(intent.nonce.toString(16))}${word(intent.validAfter.toString(16))}${word(intent.validBefore.toString(16))}${intent.policyId.slice(2).toLowerCase()}${word((data.length / 2).toString(16))}${data.toLowerCase()}${zeros.slice(0, tailPad)}`
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
