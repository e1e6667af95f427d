// The canonical bytes of an intent on Solana (docs/api-contract.md §11; programs/solana/README.md):
// the fixed little-endian layout the program hashes with sol_keccak256. X-Intent-Hash is
// keccak256 of these bytes, and the sender (or a delegate) signs that hash with Ed25519.
import type { Address } from '@solana/kit'
import type { Intent, IntentAccountMeta } from '../../ports/intent.ts'
import { decodeBase58 } from './decodeBase58.ts'

/** 24 ASCII bytes that open every canonical intent. */
export const intentDomain = 'intent-gateway/solana/v1'

/** Where an intent is bound: the program and its deployment config account. */
export type SolanaDeployment = { programId: Address; config: Address }

/** A 32-byte key; callers have checked the address (solanaRuntime.checkAddress). */
const key = (address: string) => {
  const bytes = decodeBase58(address)
  if (bytes?.length !== 32) throw new Error(`${address} is not a 32-byte base58 key`)
  return bytes
}

/**
 * domain[24] | programId[32] | config[32] | sender[32] | target[32] | value u64 | nonce u64 |
 * validAfter i64 | validBefore i64 | policyId[32] | accountCount u32 | accounts (key[32],
 * signer u8, writable u8)* | dataLength u32 | data
 */
export function canonicalIntentBytes(
  intent: Intent,
  deployment: SolanaDeployment,
  accounts: readonly IntentAccountMeta[] = intent.accounts ?? [],
): Uint8Array {
  const data = hexToBytes(intent.data)
  const out = new Uint8Array(220 + accounts.length * 34 + 4 + data.length)
  const view = new DataView(out.buffer)
  out.set(new TextEncoder().encode(intentDomain), 0)
  out.set(key(deployment.programId), 24)
  out.set(key(deployment.config), 56)
  out.set(key(intent.sender), 88)
  out.set(key(intent.target), 120)
  view.setBigUint64(152, intent.value, true)
  view.setBigUint64(160, intent.nonce, true)
  view.setBigInt64(168, intent.validAfter, true)
  view.setBigInt64(176, intent.validBefore, true)
  out.set(hexToBytes(intent.policyId), 184)
  view.setUint32(216, accounts.length, true)
  accounts.forEach((meta, i) => {
    const at = 220 + i * 34
    out.set(key(meta.address), at)
    out[at + 32] = meta.signer ? 1 : 0
    out[at + 33] = meta.writable ? 1 : 0
  })
  const dataAt = 220 + accounts.length * 34
  view.setUint32(dataAt, data.length, true)
  out.set(data, dataAt + 4)
  return out
}

function hexToBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
}
