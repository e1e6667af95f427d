// What the gateway knows about a runtime without a connection to any of its chains: how its
// addresses look, which numbers fit its integer types, and how an intent is hashed. Keyed by
// runtime so domain code never branches on it.
import type { Hex } from 'viem'
import type { FieldError } from '../errors/inputError.ts'
import type { ChainType } from './chainId.ts'
import type { Intent } from './intent.ts'

export type ChainRuntime = {
  chainType: ChainType
  /** A message saying what is wrong with an address of this runtime, or undefined. */
  checkAddress(value: string): string | undefined
  /**
   * The runtime's own rules on a schema-checked intent beyond its addresses (integer ranges,
   * fields it cannot carry), one entry per field at fault.
   */
  checkIntent(intent: Intent): FieldError[]
  hashIntent(intent: Intent): Hex
}
