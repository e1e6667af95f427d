// The fleet killed at each phase of an execution (the next instance each time), then fed RPC faults
// and a reorg, then (full runs) a steady stream of intents through rolling kills: the scale round.
import type { Campaign, Phase } from '../campaign.ts'
import { faultPhase } from '../faultPhase.ts'
import { killRound } from '../killRound.ts'
import { loadRound } from '../loadRound.ts'
import { settled } from '../settled.ts'
import type { Fleet } from './startFleet.ts'

export async function fleetPhase(campaign: Campaign, fleet: Fleet): Promise<void> {
  const phases: Phase[] = ['claim', 'signed', 'journaled', 'broadcast', 'receipt']
  for (const [i, phase] of phases.entries())
    await killRound(campaign, 'postgres', phase, fleet.nodes[i % fleet.nodes.length]!, fleet.nodes)
  await faultPhase(campaign, 'postgres', fleet.nodes)
  await loadRound(campaign, 'postgres', fleet.nodes, { count: campaign.quick ? 30 : 1_200 })
  await settled(campaign, fleet.nodes)
}
