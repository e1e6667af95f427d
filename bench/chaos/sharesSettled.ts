import type { CampaignNode } from './campaign.ts'

/** Waits until every gateway of the fleet holds `each` keys on the devnet's chain (one each of three). */
export async function sharesSettled(
  nodes: CampaignNode[],
  chainId: number,
  each = 1,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const held = await Promise.all(
      nodes.map(
        async (n) =>
          (
            (await (await fetch(`${n.instance.url}/chains/${chainId}`)).json()) as {
              relayers: Array<{ held: boolean }>
            }
          ).relayers.filter((r) => r.held).length,
      ),
    )
    if (held.every((h) => h === each)) return
    if (Date.now() > deadline)
      throw new Error(`the keys were not shared ${each} each within ${timeoutMs / 1000} s: ${held.join('/')}`)
    await new Promise((r) => setTimeout(r, 300))
  }
}
