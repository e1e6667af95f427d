// Forced blockhash expiry under a Solana gateway: a sendTransaction held at its fault proxy while
// the devnet expires the blockhash it names, then passed on (the node refuses it) or dropped (no
// answer); the gateway must re-sign, and the intent still run once. In the paid phase the round is
// run a second time on the settlements (`settlements`): their blockhash is the payer's, so the
// gateway cannot re-sign one; the payment must count as failed once it can no longer land (nothing
// charged, nothing run), and the agent's retry pay once and run the intent once.
import type { Campaign } from './campaign.ts'
import type { SolanaRounds } from './solanaRounds.ts'

/**
 * Each of `count` intents' first sendTransaction held while the devnet expires its blockhash, then
 * passed on (the node refuses it) or dropped (no answer): the relayer's broadcasts (any fee payer
 * but `r.spared`), or with `settlements` the paid phase's settlements (`r.spared`'s).
 */
export async function blockhashRound(
  campaign: Campaign,
  r: SolanaRounds,
  count: number,
  { settlements = false }: { settlements?: boolean } = {},
): Promise<void> {
  const { node, devnet } = r
  if (settlements && r.spared === undefined)
    throw new Error('a round on the settlements needs the facilitator (r.spared)')
  const held = settlements ? (payer: string) => payer === r.spared : (payer: string) => payer !== r.spared
  const what = settlements ? 'settlement' : 'broadcast'
  const batch = r.make(count, `${r.scenario}: blockhash expired under the ${what}`)
  let expired = 0
  let passedOn = 0
  let done = false
  const delivering = Promise.all(batch.map((s) => r.deliver(s))).then(() => void (done = true))
  const t = performance.now()
  while (!done && expired < count) {
    const send = await Promise.race([node.liar.holdNextSend(held), delivering.then(() => undefined)])
    if (!send) break
    await devnet.control('litesvm_expireBlockhash', [])
    expired++
    if (campaign.random() < 0.5) {
      send.forward()
      passedOn++
    } else send.drop()
  }
  node.liar.clear()
  await delivering
  campaign.otherFaults['blockhash expiry'] = (campaign.otherFaults['blockhash expiry'] ?? 0) + expired
  campaign.log(
    `  ${batch.length} intents, ${expired} ${what}s held while their blockhash expired (then ${passedOn} passed on, ${expired - passedOn} dropped): answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}
