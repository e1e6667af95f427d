// The campaign at scale: most nonce and lease bugs show only at thousands of intents. A steady
// stream of intents (a bounded number in flight, as a busy agent fleet sends them) across every
// gateway of the fleet, while the gateways are killed one after the other with SIGKILL and
// restarted, and a small share of RPC requests meet a fault. Each intent is delivered until
// answered, as the other rounds do; the verdict asks the chain about each.
import type { Campaign, CampaignNode } from './campaign.ts'
import { deliver } from './deliver.ts'
import { faultKinds } from './faultPhase.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function loadRound(
  campaign: Campaign,
  scenario: string,
  nodes: CampaignNode[],
  {
    count,
    inFlight = 48,
    killEveryMs = 12_000,
    downMs = 1_500,
    faultRate = 0.03,
  }: { count: number; inFlight?: number; killEveryMs?: number; downMs?: number; faultRate?: number },
): Promise<void> {
  const batch = await campaign.makeIntents(
    count,
    `${scenario}: ${count} intents under load, kills every ${killEveryMs / 1000} s`,
  )
  const faultsOf = () => nodes.reduce((a, n) => a + Object.values(n.proxy.faults).reduce((x, y) => x + y, 0), 0)
  const before = faultsOf()
  const t = performance.now()
  for (const n of nodes) n.proxy.faultRate(faultRate, faultKinds, campaign.random)
  let next = 0
  let done = 0
  const worker = async () => {
    for (let i = next++; i < batch.length; i = next++) {
      await deliver(campaign, batch[i]!, nodes)
      done++
    }
  }
  const delivering = Promise.all(Array.from({ length: inFlight }, worker))
  // One gateway down at a time, the next one each round, while the stream lasts.
  let kills = 0
  const killing = (async () => {
    for (let k = 0; done < batch.length; k++) {
      const finished = await Promise.race([delivering.then(() => true), sleep(killEveryMs).then(() => false)])
      if (finished) return
      const target = nodes[k % nodes.length]!
      await target.instance.kill()
      campaign.kills++
      kills++
      target.proxy.clear()
      await sleep(downMs)
      // Under a new INSTANCE_ID, as killRound.ts restarts a fleet instance (the partition check and
      // the lease table name instances by it; the same id again would hold the dead one's claims).
      target.restarts++
      await target.instance.start(nodes.length > 1 ? { INSTANCE_ID: `${target.instance.name}-${target.restarts}` } : {})
    }
  })()
  await delivering
  await killing
  for (const n of nodes) n.proxy.faultRate(0, faultKinds, campaign.random)
  const seconds = (performance.now() - t) / 1000
  campaign.log(
    `  ${batch.length} intents, ${inFlight} in flight, through ${kills} kills and ${faultsOf() - before} RPC faults (${(faultRate * 100).toFixed(0)}% of requests): answered in ${seconds.toFixed(1)} s (${(batch.length / seconds).toFixed(1)} intents/s)`,
  )
}
