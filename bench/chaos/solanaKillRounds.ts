// SIGKILL of a Solana gateway at each phase of an execution: the RPC call that marks the phase
// held (simulateTransaction, sendTransaction, getSignatureStatuses) or watched at its fault proxy.
import { type Campaign, type Phase, phaseNames } from './campaign.ts'
import type { SolanaRounds } from './solanaRounds.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function solanaKillRounds(
  campaign: Campaign,
  r: SolanaRounds,
  perKill: number,
  phases: Phase[] = ['claim', 'journaled', 'broadcast', 'receipt'],
): Promise<void> {
  const { node } = r
  for (const phase of phases) {
    const batch = r.make(perKill, `${r.scenario}: kill ${phaseNames[phase]}`)
    const reached = (async () => {
      if (phase === 'claim') return void (await node.proxy.hold(['simulateTransaction']))
      if (phase === 'journaled') return void (await node.proxy.hold(['sendTransaction']))
      if (phase === 'broadcast') return void (await node.proxy.afterAnswer(['sendTransaction']))
      await node.proxy.afterAnswer(['sendTransaction'])
      await node.proxy.hold(['getSignatureStatuses'])
    })()
    const first = batch.map((s) => r.first(s))
    const hit = await Promise.race([reached.then(() => true), sleep(20_000).then(() => false)])
    await node.instance.kill()
    campaign.kills++
    campaign.phasesHit.push({ scenario: r.scenario, phase, instance: node.instance.name, reached: hit })
    node.proxy.clear()
    await Promise.all(first)
    await node.instance.start()
    const t = performance.now()
    await Promise.all(batch.map((s) => r.deliver(s)))
    campaign.log(
      `  ${hit ? 'killed' : 'killed (phase not seen in 20 s)'} ${node.instance.name} ${phaseNames[phase]}; restarted; ${batch.length} intents answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    )
  }
}
