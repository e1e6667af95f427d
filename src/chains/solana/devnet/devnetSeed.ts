// The Solana devnet's fixed keys: 32-byte Ed25519 seeds derived from public labels ("payer",
// "relayer", …), so that the demo and its printed commands can sign. Devnet only, never elsewhere.
import { createHash } from 'node:crypto'

export function devnetSeed(label: string): Uint8Array {
  return Uint8Array.from(createHash('sha256').update(`intent-gateway solana devnet ${label}`).digest())
}
