// SOLANA_RELAYER_PRIVATE_KEY: the Solana relayer's Ed25519 key, which signs and pays for
// executions on every configured Solana chain. Accepted as the Solana CLI writes it (a JSON array
// of 64 numbers: the seed, then the public key) or as base58 (64 bytes, as wallets export it, or
// the 32-byte seed). Returns the 32-byte seed, or a problem that never repeats the key.
import { createHash } from 'node:crypto'
import { readSolanaKeyBytes } from '../../signers/readSolanaKeyBytes.ts'
import { ed25519Seed } from './ed25519Seed.ts'

export type SolanaRelayerKey = { ok: true; key: Uint8Array | undefined } | { ok: false; problem: string }

const name = 'SOLANA_RELAYER_PRIVATE_KEY'
/** The devnet's relayer key (startSolanaDevnet): public, refused in production. */
const devnetSeed = createHash('sha256').update('intent-gateway solana devnet relayer').digest()

export function solanaRelayerKey(raw: string | undefined, { production }: { production: boolean }): SolanaRelayerKey {
  const text = raw?.trim()
  if (!text) return { ok: true, key: undefined }
  const bytes = readSolanaKeyBytes(
    text,
    "must be the Solana CLI's keypair (a JSON array of 64 numbers) or base58 (characters 1-9, A-Z, a-z without 0, O, I, l)",
  )
  if (typeof bytes === 'string') return { ok: false, problem: `${name}: ${bytes}` }
  const seed = bytes.slice(0, 32)
  if (bytes.length === 64) {
    if (!Buffer.from(ed25519Seed.publicKey(seed)).equals(Buffer.from(bytes.subarray(32))))
      return {
        ok: false,
        problem: `${name}: its last 32 bytes are not the public key of its first 32 (a damaged keypair?)`,
      }
  }
  if (production && Buffer.from(seed).equals(devnetSeed))
    return { ok: false, problem: `${name}: is the public devnet relayer key and is refused when NODE_ENV=production` }
  return { ok: true, key: seed }
}
