// A batch of Solana intents through the confirmation-lying endpoint (confirmationLiar.ts).
import type { Campaign } from './campaign.ts'
import type { SolanaRounds } from './solanaRounds.ts'

/** A batch through the confirmation-lying endpoint ("not found" for landed signatures, "confirmed" before the node has the transaction). */
export async function lyingRound(campaign: Campaign, r: SolanaRounds, count: number): Promise<void> {
  const { liar } = r.node
  const batch = r.make(count, `${r.scenario}: confirmation-lying endpoint`)
  const before = { ...liar.lies }
  liar.notFound = 0.3
  // Half the sends in the paid phase, whose few intents would else often see no settlement lied about.
  liar.early = r.spared === undefined ? 0.25 : 0.5
  // The paid phase: each settlement called confirmed early meets a blockhash expiry before the node
  // has it, so the node refuses it (the lie that once ran an intent nobody paid for).
  let expiredUnderLie = 0
  if (r.spared !== undefined)
    liar.onEarlyAnswer = async (feePayer) => {
      if (feePayer !== r.spared) return
      await r.devnet.control('litesvm_expireBlockhash', [])
      expiredUnderLie++
    }
  const t = performance.now()
  await Promise.all(batch.map((s) => r.deliver(s)))
  liar.notFound = 0
  liar.early = 0
  liar.onEarlyAnswer = undefined
  for (const line of liar.refusedLate.splice(0))
    campaign.log(`  called confirmed early, then refused by the node: ${line}`)
  const notFound = liar.lies.notFound - before.notFound
  const early = liar.lies.earlyConfirmed - before.earlyConfirmed
  campaign.otherFaults['confirmation lie'] = (campaign.otherFaults['confirmation lie'] ?? 0) + notFound + early
  if (expiredUnderLie > 0)
    campaign.otherFaults['blockhash expiry'] = (campaign.otherFaults['blockhash expiry'] ?? 0) + expiredUnderLie
  campaign.log(
    `  ${batch.length} intents through a lying endpoint (${notFound} landed signatures called not found, ${early} transactions called confirmed before the node had them${r.spared === undefined ? '' : `, ${expiredUnderLie} settlements' blockhashes expired while called confirmed`}): answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}
