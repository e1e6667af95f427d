// A batch of Solana intents through the confirmation-lying endpoint (confirmationLiar.ts).
import type { Campaign } from './campaign.ts'
import type { SolanaRounds } from './solanaRounds.ts'

/** A batch through the confirmation-lying endpoint ("not found" for landed signatures, "confirmed" before the node has the transaction). */
export async function lyingRound(campaign: Campaign, r: SolanaRounds, count: number): Promise<void> {
  const { liar } = r.node
  const batch = r.make(count, `${r.scenario}: confirmation-lying endpoint`)
  const before = { ...liar.lies }
  liar.notFound = 0.3
  liar.early = 0.25
  const t = performance.now()
  await Promise.all(batch.map((s) => r.deliver(s)))
  liar.notFound = 0
  liar.early = 0
  for (const line of liar.refusedLate.splice(0))
    campaign.log(`  called confirmed early, then refused by the node: ${line}`)
  const notFound = liar.lies.notFound - before.notFound
  const early = liar.lies.earlyConfirmed - before.earlyConfirmed
  campaign.otherFaults['confirmation lie'] = (campaign.otherFaults['confirmation lie'] ?? 0) + notFound + early
  campaign.log(
    `  ${batch.length} intents through a lying endpoint (${notFound} landed signatures called not found, ${early} transactions called confirmed before the node had them): answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}
