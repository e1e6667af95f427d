// The intent's BCS bytes on Sui, as the Move struct intent_gateway::intents::Intent lays them out
// (move/README.md): domain vector<u8> | sender address | target address | value u64 | nonce u64 |
// valid_after u64 | valid_before u64 | policy_id ID. A Sui intent moves value only: `data` is not
// part of it (the gateway refuses anything but 0x). X-Intent-Hash is their keccak256.
import { hexToBytes } from 'viem'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { IntentBody } from '../intentInput.ts'

const domain = new TextEncoder().encode('intent-gateway/sui/v1')

export function suiIntentBytes(body: IntentBody): Uint8Array {
  const out = new Uint8Array(1 + domain.length + 32 + 32 + 8 * 4 + 32)
  const view = new DataView(out.buffer)
  let at = 0
  out[at++] = domain.length // ULEB128 of a length below 128 is one byte
  out.set(domain, at)
  at += domain.length
  for (const field of ['sender', 'target'] as const) {
    out.set(bytes32(body[field], field), at)
    at += 32
  }
  for (const field of ['value', 'nonce', 'validAfter', 'validBefore'] as const) {
    const n = BigInt(body[field])
    if (n >= 2n ** 64n)
      throw new GatewayClientError(`The intent's ${field} must be below 2^64 on Sui`, { code: 'INVALID_INTENT', field })
    view.setBigUint64(at, n, true)
    at += 8
  }
  out.set(bytes32(body.policyId, 'policyId'), at)
  return out
}

function bytes32(hex: string, field: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex))
    throw new GatewayClientError(`The intent's ${field} must be 0x followed by 64 hex digits on Sui`, {
      code: 'INVALID_INTENT',
      field,
    })
  return hexToBytes(hex as `0x${string}`)
}
