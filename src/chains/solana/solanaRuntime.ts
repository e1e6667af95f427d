// Solana addresses, integer ranges and the intent hash (docs/api-contract.md §11). The hash covers the
// deployment (program id and config account), so each Solana chain has its own runtime, made by
// createSolanaRuntime; `solanaRuntime` (no deployment, all-zero keys) only parses and hashes
// requests for Solana chains this gateway does not serve. Nothing here loads @solana/kit (type
// imports only), so the registry can know Solana without loading its client.
import type { Address } from '@solana/kit'
import { keccak256 } from '../../crypto/keccak256.ts'
import type { FieldError } from '../../errors/inputError.ts'
import type { ChainRuntime } from '../../ports/chainRuntime.ts'
import { canonicalIntentBytes, type SolanaDeployment } from './canonicalIntentBytes.ts'
import { decodeBase58 } from './decodeBase58.ts'

const maxU64 = 2n ** 64n - 1n
const minI64 = -(2n ** 63n)
const maxI64 = 2n ** 63n - 1n
const base58Alphabet = /^[1-9A-HJ-NP-Za-km-z]+$/

const noDeployment: SolanaDeployment = {
  programId: '11111111111111111111111111111111' as Address,
  config: '11111111111111111111111111111111' as Address,
}

export function createSolanaRuntime(deployment: SolanaDeployment = noDeployment): ChainRuntime {
  return {
    chainType: 'solana',
    checkAddress(value) {
      if (!base58Alphabet.test(value))
        return 'must be a base58 public key (characters 1-9, A-Z, a-z without 0, O, I, l)'
      if (value.length > 44) return 'must be a base58 public key of 32 bytes (it is too long)'
      const length = decodeBase58(value)!.length
      if (length !== 32) return `must be a base58 public key of 32 bytes (it decodes to ${length})`
      return undefined
    },
    checkIntent(intent) {
      const errors: FieldError[] = []
      if (intent.value > maxU64)
        errors.push({ field: 'value', message: 'must fit in a u64 (at most 18446744073709551615 lamports)' })
      if (intent.nonce > maxU64)
        errors.push({ field: 'nonce', message: 'must fit in a u64 (at most 18446744073709551615)' })
      for (const field of ['validAfter', 'validBefore'] as const) {
        const n = intent[field]
        if (n < minI64 || n > maxI64)
          errors.push({ field, message: 'must fit in an i64 of unix seconds (at most 9223372036854775807)' })
      }
      return errors
    },
    hashIntent(intent) {
      return keccak256(canonicalIntentBytes(intent, deployment, intent.accounts))
    },
  }
}

export const solanaRuntime: ChainRuntime = createSolanaRuntime()
