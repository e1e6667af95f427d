// The intent hash the gateway answers in X-Intent-Hash, computed locally for any runtime.
import { type Hex, keccak256 } from 'viem'
import type { HashTarget } from './chainDescription.ts'
import { hashEvmBatch } from './evm/hashEvmBatch.ts'
import { hashEvmIntent } from './evm/hashEvmIntent.ts'
import { GatewayClientError } from './gatewayClientError.ts'
import type { AnyIntentInput } from './intentInput.ts'
import { solanaIntentBytes } from './solana/solanaIntentBytes.ts'
import { suiIntentBytes } from './sui/suiIntentBytes.ts'
import { toIntentBody } from './toIntentBody.ts'

/**
 * EVM: keccak256(abi.encode(intent)), in either mode (a batch: keccak256(abi.encode(BatchIntent)));
 * Solana: keccak256 of the canonical bytes bound to the chain's program and config account
 * (`chain.contracts`, as GET /chains/{chainId} gives them); Sui: keccak256 of the BCS bytes. The
 * signature and the authorization are never part of the hash.
 */
export function hashIntent(intent: AnyIntentInput, chain: HashTarget = { chainType: 'evm' }): Hex {
  const body = toIntentBody(intent)
  if (body.calls !== undefined) {
    if (chain.chainType === 'evm') return hashEvmBatch(body)
    throw new GatewayClientError(`Batches (calls) run in EVM account mode only, not on ${chain.chainType} chains`, {
      code: 'INVALID_INTENT',
      field: 'calls',
    })
  }
  switch (chain.chainType) {
    case 'evm':
      return hashEvmIntent(body)
    case 'solana': {
      if (!chain.contracts)
        throw new GatewayClientError(
          "Hashing a Solana intent needs the chain's program id and config account (chain.contracts)",
          { code: 'INVALID_ARGUMENT' },
        )
      return keccak256(
        solanaIntentBytes(body, { programId: chain.contracts.executor, config: chain.contracts.registry }),
      )
    }
    case 'sui':
      return keccak256(suiIntentBytes(body))
    default:
      throw new GatewayClientError(`Unknown chain runtime ${String((chain as { chainType: unknown }).chainType)}`, {
        code: 'INVALID_ARGUMENT',
      })
  }
}
