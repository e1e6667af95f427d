// The canonical bytes of an intent on Solana (docs/api-contract.md §11, programs/solana/README.md):
// domain[24] | programId[32] | config[32] | sender[32] | target[32] | value u64 | nonce u64 |
// validAfter i64 | validBefore i64 | policyId[32] | accountCount u32 | (key[32] signer u8
// writable u8)* | dataLength u32 | data, little-endian. X-Intent-Hash is their keccak256.
import { base58 } from '@scure/base'
import { hexToBytes } from 'viem'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { IntentBody } from '../intentInput.ts'

const domain = new TextEncoder().encode('intent-gateway/solana/v1')

export function solanaIntentBytes(body: IntentBody, deployment: { programId: string; config: string }): Uint8Array {
  const accounts = body.accounts ?? []
  const data = hexToBytes(body.data)
  const out = new Uint8Array(220 + accounts.length * 34 + 4 + data.length)
  const view = new DataView(out.buffer)
  out.set(domain, 0)
  out.set(key(deployment.programId, 'programId'), 24)
  out.set(key(deployment.config, 'config'), 56)
  out.set(key(body.sender, 'sender'), 88)
  out.set(key(body.target, 'target'), 120)
  view.setBigUint64(152, u64(body.value, 'value'), true)
  view.setBigUint64(160, u64(body.nonce, 'nonce'), true)
  view.setBigInt64(168, i64(body.validAfter, 'validAfter'), true)
  view.setBigInt64(176, i64(body.validBefore, 'validBefore'), true)
  const policyId = hexToBytes(body.policyId)
  if (policyId.length !== 32) throw invalid('policyId', 'must be 0x followed by 64 hex digits')
  out.set(policyId, 184)
  view.setUint32(216, accounts.length, true)
  accounts.forEach((meta, i) => {
    const at = 220 + i * 34
    out.set(key(meta.address, `accounts[${i}].address`), at)
    out[at + 32] = meta.signer ? 1 : 0
    out[at + 33] = meta.writable ? 1 : 0
  })
  const dataAt = 220 + accounts.length * 34
  view.setUint32(dataAt, data.length, true)
  out.set(data, dataAt + 4)
  return out
}

function invalid(field: string, message: string) {
  return new GatewayClientError(`The intent's ${field} ${message}`, { code: 'INVALID_INTENT', field })
}

function key(address: string, field: string): Uint8Array {
  let bytes: Uint8Array | undefined
  try {
    bytes = base58.decode(address)
  } catch {
    bytes = undefined
  }
  if (bytes?.length !== 32) throw invalid(field, 'must be a base58 32-byte key')
  return bytes
}

function u64(decimal: string, field: string): bigint {
  const n = BigInt(decimal)
  if (n >= 2n ** 64n) throw invalid(field, 'must be below 2^64 on Solana')
  return n
}

function i64(decimal: string, field: string): bigint {
  const n = BigInt(decimal)
  if (n >= 2n ** 63n) throw invalid(field, 'must be below 2^63 on Solana')
  return n
}
