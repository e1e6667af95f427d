// Validate: one read of the chain's validator; its code is the outcome.
import type { Hex } from 'viem'
import type { ChainAdapter } from '../chains/chainAdapter.ts'
import type { Intent } from './intent.ts'
import type { IntentOutcome } from './intentOutcome.ts'

export async function validateIntent({ adapter, intent, intentHash }: { adapter: ChainAdapter; intent: Intent; intentHash: Hex }): Promise<IntentOutcome> {
  const status = await adapter.validate(intent)
  return { status, intentHash, chainId: adapter.chainId, chainType: adapter.chainType }
}
