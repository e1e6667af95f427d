import { createDevClients, intentExecutorArtifact } from '../gatewayParts.ts'
import type { Campaign, CampaignNode } from './campaign.ts'
import { deliver } from './deliver.ts'
import type { FaultKind } from './faultProxy.ts'
import { rpc } from './rpc.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Share of RPC requests that meet a fault during a fault phase. */
const faultRate = 0.12
export const faultKinds: FaultKind[] = ['http500', 'timeout', 'reset', 'lag']
/** Blocks a reorg orphans: fewer than CONFIRMATIONS, or the gateway would have called them final. */
export const orphanDepth = 2

/** Intents sent to every gateway while the proxies inject faults, and a reorg once some are mined. */
export async function faultPhase(campaign: Campaign, scenario: string, nodes: CampaignNode[]): Promise<void> {
  const { devnet, random, quick } = campaign
  /** How long the phase injects faults at most; the intents not answered by then are answered without. */
  const faultWindowMs = quick ? 30_000 : 60_000
  const batch = await campaign.makeIntents(quick ? 12 : 40, `${scenario}: RPC faults and a reorg`)
  const before = nodes.reduce((a, n) => a + Object.values(n.proxy.faults).reduce((x, y) => x + y, 0), 0)
  for (const n of nodes) n.proxy.faultRate(faultRate, faultKinds, random)
  const t = performance.now()
  const hashes = new Set(batch.map((b) => b.hash))
  // The reorg: once some of these intents are mined, the last blocks are orphaned (anvil_reorg
  // mines as many empty blocks in their place).
  const reorg = (async () => {
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    const from = await publicClient.getBlockNumber()
    for (let i = 0; i < 120; i++) {
      await sleep(500)
      const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock: from })
      if (logs.filter((l) => hashes.has(l.args.intentHash!)).length >= Math.ceil(batch.length / 4)) {
        const head = await publicClient.getBlockNumber()
        const orphaned = logs.filter(
          (l) => hashes.has(l.args.intentHash!) && l.blockNumber! > head - BigInt(orphanDepth),
        ).length
        await rpc(devnet.anvil.rpcUrl, 'anvil_reorg', [orphanDepth, []])
        campaign.otherFaults.reorg = (campaign.otherFaults.reorg ?? 0) + 1
        return orphaned
      }
    }
    return 0
  })()
  // Faults for at most faultWindowMs; then the gateways must converge without them.
  let inWindow = 0
  const delivered = Promise.all(
    batch.map((s) =>
      deliver(campaign, s, nodes).then(
        () => void (performance.now() - t < faultWindowMs && !s.unanswered && inWindow++),
      ),
    ),
  )
  await Promise.race([delivered, sleep(faultWindowMs)])
  for (const n of nodes) n.proxy.faultRate(0, faultKinds, random)
  await delivered
  const orphaned = await reorg
  const after = nodes.reduce((a, n) => a + Object.values(n.proxy.faults).reduce((x, y) => x + y, 0), 0)
  campaign.log(
    `  ${batch.length} intents through ${after - before} RPC faults (${(faultRate * 100).toFixed(0)}% of requests) and a reorg of ${orphanDepth} blocks that orphaned ${orphaned} of their executions: answered in ${((performance.now() - t) / 1000).toFixed(1)} s (${inWindow} while the faults lasted, ${faultWindowMs / 1000} s at most)`,
  )
}
