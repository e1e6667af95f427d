// The intent hash the gateway answers in X-Intent-Hash, computed locally for any runtime.
import { type Hex, keccak256 } from 'viem'
import type { HashTarget } from './chainDescription.ts'
import { hashEvmIntent } from './evm/hashEvmIntent.ts'
import { GatewayClientError } from './gatewayClientError.ts'
import type { IntentInput } from './intentInput.ts'
import { solanaIntentBytes } from './solana/solanaIntentBytes.ts'
import { suiIntentBytes } from './sui/suiIntentBytes.ts'
import { toIntentBody } from './toIntentBody.ts'

/**
 * EVM: keccak256(abi.encode(intent)); Solana: keccak256 of the canonical bytes bound to the
 * chain's program and config account (`chain.contracts`, as GET /chains/{chainId} gives them);
 * Sui: keccak256 of the BCS bytes. The signature is never part of the hash.
 */
export function hashIntent(intent: IntentInput, chain: HashTarget = { chainType: 'evm' }): Hex {
  const body = toIntentBody(intent)
  switch (chain.chainType) {
    case 'evm':
      return hashEvmIntent(body)
    case 'solana': {
      if (!chain.contracts) throw new GatewayClientError("Hashing a Solana intent needs the chain's program id and config account (chain.contracts)", { code: 'INVALID_ARGUMENT' })
      return keccak256(solanaIntentBytes(body, { programId: chain.contracts.executor, config: chain.contracts.registry }))
    }
    case 'sui':
      return keccak256(suiIntentBytes(body))
    default:
      throw new GatewayClientError(`Unknown chain runtime ${String((chain as { chainType: unknown }).chainType)}`, { code: 'INVALID_ARGUMENT' })
  }
}
