// Why an intent is short of funds (ERC-1066 0x54), read from the same contracts the validator
// reads, in its order: the policy's per-transaction cap, its aggregate cap, then the sender's
// deposit. Only the deposit can be fixed by paying (depositFor); a cap cannot.
import type { Address, PublicClient } from 'viem'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../contracts/policyRegistryArtifact.ts'
import type { Intent } from '../../ports/intent.ts'
import type { FundingShortfall } from '../../ports/fundingShortfall.ts'

export async function readFundingShortfall({
  client,
  executor,
  registry,
  intent,
}: {
  client: PublicClient
  executor: Address
  registry: Address
  intent: Intent
}): Promise<FundingShortfall | undefined> {
  const [policy, spent, deposit] = await Promise.all([
    client.readContract({ address: registry, abi: policyRegistryArtifact.abi, functionName: 'getPolicy', args: [intent.policyId] }),
    client.readContract({ address: executor, abi: intentExecutorArtifact.abi, functionName: 'policySpent', args: [intent.policyId] }),
    client.readContract({ address: executor, abi: intentExecutorArtifact.abi, functionName: 'deposits', args: [intent.sender as Address] }),
  ])
  if (intent.value > policy.maxValuePerTx) {
    return { limit: 'policy', detail: `the policy allows at most ${policy.maxValuePerTx} wei per intent; no deposit raises that cap`, cap: policy.maxValuePerTx.toString() }
  }
  const remaining = policy.maxAggregateValue > spent ? policy.maxAggregateValue - spent : 0n
  if (intent.value > remaining) {
    return { limit: 'policy', detail: `the policy has ${remaining} wei left of its ${policy.maxAggregateValue} wei total; no deposit raises that cap`, cap: remaining.toString() }
  }
  // A batch runs in account mode only, paid from the account's own ETH: no deposit is involved.
  if (intent.calls) return undefined
  if (intent.value > deposit) {
    return {
      limit: 'deposit',
      detail: `the sender's deposit is ${deposit} wei, ${intent.value - deposit} wei short of the intent's value`,
      amount: (intent.value - deposit).toString(),
      deposit: deposit.toString(),
    }
  }
  return undefined
}
