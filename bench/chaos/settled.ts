import type { Campaign, CampaignNode } from './campaign.ts'

/** Waits until no gateway has an execution left unsettled in its journal; else records which. */
export async function settled(campaign: Campaign, nodes: CampaignNode[]): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const pending = await Promise.all(
      nodes.map(
        async (n) =>
          ((await (await fetch(`${n.instance.url}/health`)).json()) as { journal?: { pendingExecutions?: number } })
            .journal?.pendingExecutions ?? 0,
      ),
    )
    if (pending.every((p) => p === 0)) return
    if (Date.now() > deadline) {
      campaign.unsettled.push(
        `${nodes.map((n, i) => `${n.instance.name} ${pending[i]}`).join(', ')} executions still pending in the journal 60 s after the last answer`,
      )
      campaign.log(`  ${campaign.unsettled.at(-1)}`)
      return
    }
    await new Promise((r) => setTimeout(r, 500))
  }
}
