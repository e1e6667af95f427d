// Validate: one read of the chain (the validator's policy read, with the signature checked by the
// chain when one is given; in account mode, the account's own check); its code is the outcome.
import type { Hex } from 'viem'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../ports/intent.ts'
import type { IntentOutcome } from '../ports/intentOutcome.ts'
import { signingFor } from './signingFor.ts'

export async function validateIntent({
  adapter,
  intent,
  intentHash,
  signature,
  account,
}: {
  adapter: ChainAdapter
  intent: Intent
  intentHash: Hex
  signature?: Hex | undefined
  account?: AccountMode | undefined
}): Promise<IntentOutcome> {
  const answer = await adapter.validate(intent, signature, account)
  const base = { intentHash, chainId: adapter.chainId, chainType: adapter.chainType }
  if (typeof answer !== 'number') return { ...base, ...answer }
  return { ...base, status: answer, signing: signingFor(adapter, intent, answer, account) }
}
