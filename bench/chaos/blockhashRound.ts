// Forced blockhash expiry under a Solana gateway: a sendTransaction held at its fault proxy while
// the devnet expires the blockhash it names, then passed on (the node refuses it) or dropped (no
// answer); the gateway must re-sign, and the intent still run once.
import type { Campaign } from './campaign.ts'
import type { SolanaRounds } from './solanaRounds.ts'

/** Each of `count` intents' first sendTransaction held while the devnet expires its blockhash, then passed on (the node refuses it) or dropped (no answer). */
export async function blockhashRound(campaign: Campaign, r: SolanaRounds, count: number): Promise<void> {
  const { node, devnet } = r
  const batch = r.make(count, `${r.scenario}: blockhash expired under the broadcast`)
  let expired = 0
  let done = false
  const delivering = Promise.all(batch.map((s) => r.deliver(s))).then(() => void (done = true))
  const t = performance.now()
  while (!done && expired < count) {
    const held = await Promise.race([
      node.liar.holdNextSend((payer) => payer !== r.spared),
      delivering.then(() => undefined),
    ])
    if (!held) break
    await devnet.control('litesvm_expireBlockhash', [])
    expired++
    if (campaign.random() < 0.5) held.forward()
    else held.drop()
  }
  node.liar.clear()
  await delivering
  campaign.otherFaults['blockhash expiry'] = (campaign.otherFaults['blockhash expiry'] ?? 0) + expired
  campaign.log(
    `  ${batch.length} intents, ${expired} broadcasts held while their blockhash expired (then passed on or dropped): answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}
