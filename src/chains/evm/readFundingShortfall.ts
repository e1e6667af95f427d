// Why an intent is short of funds (ERC-1066 0x54), read from the same contracts the validator
// reads, in its order: the policy's per-transaction cap, its aggregate cap, then the sender's
// deposit (executor mode) or the account's own ETH (account mode: the value leaves the agent's own
// address and no deposit is ever spent, so naming the deposit would send the agent the wrong way).
// Only the deposit or the balance can be fixed by paying; a cap cannot.
import type { Address, PublicClient } from 'viem'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../contracts/policyRegistryArtifact.ts'
import type { FundingShortfall } from '../../ports/fundingShortfall.ts'
import type { AccountMode, Intent } from '../../ports/intent.ts'

export async function readFundingShortfall({
  client,
  executor,
  registry,
  intent,
  account,
}: {
  client: PublicClient
  executor: Address
  registry: Address
  intent: Intent
  /** Account mode (a batch always is): the value comes from the sender's own balance. */
  account?: AccountMode | undefined
}): Promise<FundingShortfall | undefined> {
  const accountMode = account !== undefined || intent.calls !== undefined
  const [policy, spent, funds] = await Promise.all([
    client.readContract({
      address: registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'getPolicy',
      args: [intent.policyId],
    }),
    // The executor reads the shared ledger's spend: one figure for both modes.
    client.readContract({
      address: executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'policySpent',
      args: [intent.policyId],
    }),
    accountMode
      ? client.getBalance({ address: intent.sender as Address })
      : client.readContract({
          address: executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'deposits',
          args: [intent.sender as Address],
        }),
  ])
  if (intent.value > policy.maxValuePerTx) {
    return {
      limit: 'policy',
      detail: `the policy allows at most ${policy.maxValuePerTx} wei per intent; no deposit raises that cap`,
      cap: policy.maxValuePerTx.toString(),
    }
  }
  const remaining = policy.maxAggregateValue > spent ? policy.maxAggregateValue - spent : 0n
  if (intent.value > remaining) {
    return {
      limit: 'policy',
      detail: `the policy has ${remaining} wei left of its ${policy.maxAggregateValue} wei total; no deposit raises that cap`,
      cap: remaining.toString(),
    }
  }
  if (intent.value <= funds) return undefined
  const amount = (intent.value - funds).toString()
  if (accountMode) {
    return {
      limit: 'balance',
      detail: `the account's own balance is ${funds} wei, ${amount} wei short of the intent's value (account mode spends the sender's own ETH)`,
      amount,
      balance: funds.toString(),
    }
  }
  return {
    limit: 'deposit',
    detail: `the sender's deposit is ${funds} wei, ${amount} wei short of the intent's value`,
    amount,
    deposit: funds.toString(),
  }
}
