// The intent's canonical bytes on Sui: the BCS encoding of the Move struct
// `intent_gateway::intents::Intent` (move/sources/intents.move), written out by hand so that the
// layout is visible here and checked against @mysten/bcs in the test. These bytes are what the
// sender signs with signPersonalMessage and what the module hashes with keccak256.
import type { Intent } from '../../ports/intent.ts'

/** First field of every intent: ties a signature to this gateway's module and layout version. */
export const suiIntentDomain = new TextEncoder().encode('intent-gateway/sui/v1')

/**
 * struct Intent { domain: vector<u8>, sender: address, target: address, value: u64, nonce: u64,
 * valid_after: u64, valid_before: u64, policy_id: ID }. `data` is not part of it: a Sui intent
 * moves value only and its data is always empty.
 */
export function encodeSuiIntent(intent: Intent): Uint8Array {
  const out = new Uint8Array(1 + suiIntentDomain.length + 32 + 32 + 8 * 4 + 32)
  let at = 0
  // ULEB128 length of a vector shorter than 128 bytes is one byte.
  out[at++] = suiIntentDomain.length
  out.set(suiIntentDomain, at)
  at += suiIntentDomain.length
  for (const hex of [intent.sender, intent.target]) {
    out.set(Buffer.from(hex.slice(2), 'hex'), at)
    at += 32
  }
  const view = new DataView(out.buffer)
  for (const n of [intent.value, intent.nonce, intent.validAfter, intent.validBefore]) {
    view.setBigUint64(at, n, true)
    at += 8
  }
  out.set(Buffer.from(intent.policyId.slice(2), 'hex'), at)
  return out
}
