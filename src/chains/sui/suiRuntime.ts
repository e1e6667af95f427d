// Sui addresses, Sui's integer ranges and the Sui intent hash: keccak256 of the intent's BCS bytes,
// the hash the Move module emits in IntentExecuted.

import { keccak256 } from '../../crypto/keccak256.ts'
import type { FieldError } from '../../errors/inputError.ts'
import type { ChainRuntime } from '../../ports/chainRuntime.ts'
import { refuseAccountMetas } from '../refuseAccountMetas.ts'
import { encodeSuiIntent } from './encodeSuiIntent.ts'

const maxU64 = 2n ** 64n - 1n

export const suiRuntime: ChainRuntime = {
  chainType: 'sui',
  checkAddress(value) {
    // Short forms (0x2) are refused rather than padded: an agent that drops digits of a 32-byte
    // address has more likely made a mistake than used the shorthand of system objects.
    if (!/^0x[0-9a-fA-F]{64}$/.test(value))
      return 'must be a Sui address: 0x followed by 64 hex digits (short forms such as 0x2 are not accepted: write all 64 digits)'
    return undefined
  },
  checkIntent(intent) {
    const errors: FieldError[] = refuseAccountMetas(intent, 'Sui')
    if (intent.data !== '0x')
      errors.push({
        field: 'data',
        message: 'must be "0x" on Sui: a Sui intent moves value only, the Move module cannot call a target with data',
      })
    for (const field of ['value', 'nonce', 'validAfter', 'validBefore'] as const) {
      if (intent[field] > maxU64) errors.push({ field, message: 'must be below 2^64 on Sui (a Move u64)' })
    }
    return errors
  },
  hashIntent(intent) {
    return keccak256(encodeSuiIntent(intent))
  },
}
