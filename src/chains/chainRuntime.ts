// What the gateway knows about a runtime without a connection to any of its chains: how its
// addresses look and how an intent is hashed. Keyed by runtime so domain code never branches on it.
import type { Hex } from 'viem'
import type { ChainType } from '../config/parseChainId.ts'
import type { Intent } from '../intents/intent.ts'
import type { AddressCheck } from '../intents/parseIntent.ts'

export type ChainRuntime = {
  chainType: ChainType
  checkAddress: AddressCheck
  hashIntent(intent: Intent): Hex
}
