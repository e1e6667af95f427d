// A Solana secret key as a setting holds it: the Solana CLI's keypair file (a JSON array of 64
// numbers: the seed, then the public key) or base58 (the 64-byte keypair, as wallets export it, or
// the 32-byte seed). Read alike for the Solana relayer's key (chains/solana/solanaRelayerKey.ts) and
// the in-process facilitator's (payments/mechanisms/svm/svmPaymentSettings.ts); both may import
// signers/, neither the other's room.
import { base58 } from '@scure/base'

/**
 * The key's bytes (64: the seed then the public key, or the 32-byte seed), or what is wrong with it,
 * never repeating the key. `notBase58` is the caller's words for text that is neither a JSON array
 * nor base58.
 */
export function readSolanaKeyBytes(text: string, notBase58: string): Uint8Array | string {
  let bytes: Uint8Array | undefined
  if (text.startsWith('[')) {
    try {
      const list = JSON.parse(text) as unknown
      if (Array.isArray(list) && list.every((n) => Number.isInteger(n) && n >= 0 && n <= 255))
        bytes = Uint8Array.from(list as number[])
    } catch {
      bytes = undefined
    }
    if (!bytes) return "not a JSON array of byte values (the Solana CLI's keypair file holds 64 numbers)"
  } else {
    if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(text)) return notBase58
    bytes = base58.decode(text)
  }
  if (bytes.length !== 64 && bytes.length !== 32)
    return `must hold 64 bytes (seed and public key) or the 32-byte seed; it holds ${bytes.length}`
  return bytes
}
