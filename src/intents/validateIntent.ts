// Validate: one read of the chain (the validator's policy read, with the signature checked by the
// chain when one is given); its code is the outcome.
import type { Hex } from 'viem'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { Intent } from '../ports/intent.ts'
import type { IntentOutcome } from '../ports/intentOutcome.ts'
import { signingFor } from './signingFor.ts'

export async function validateIntent({ adapter, intent, intentHash, signature }: { adapter: ChainAdapter; intent: Intent; intentHash: Hex; signature?: Hex | undefined }): Promise<IntentOutcome> {
  const status = await adapter.validate(intent, signature)
  return { status, intentHash, chainId: adapter.chainId, chainType: adapter.chainType, signing: signingFor(adapter, intent, status) }
}
