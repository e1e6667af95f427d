import { type Campaign, type CampaignNode, type Phase, phaseNames } from './campaign.ts'
import { deliver } from './deliver.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Sends the campaign's per-kill intents to `target`, waits until one of its executions reaches
 * `phase` (the proxy holds or watches the RPC call that marks it), kills the gateway with SIGKILL,
 * starts it again, and lets the clients retry each intent on any live gateway until it is answered.
 */
export async function killRound(
  campaign: Campaign,
  scenario: string,
  phase: Phase,
  target: CampaignNode,
  all: CampaignNode[],
): Promise<void> {
  const batch = await campaign.makeIntents(campaign.quick ? 3 : 6, `${scenario}: kill ${phaseNames[phase]}`)
  const { proxy, db } = target
  const simulation = ['eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1']
  const reached = (async () => {
    if (phase === 'claim') return void (await proxy.hold(simulation))
    if (phase === 'signed') {
      if (!db) throw new Error('the signed phase needs the database relay')
      const held = await proxy.hold(simulation)
      db.stall()
      const wrote = db.nextWrite()
      held.forward()
      await wrote
      return void (await sleep(50))
    }
    if (phase === 'journaled') return void (await proxy.hold(['eth_sendRawTransaction']))
    if (phase === 'broadcast') return void (await proxy.afterAnswer(['eth_sendRawTransaction']))
    await proxy.afterAnswer(['eth_sendRawTransaction'])
    await proxy.hold(['eth_getTransactionReceipt', 'eth_blockNumber', 'eth_getBlockByNumber'])
  })()
  const first = batch.map((s) =>
    fetch(`${target.instance.url}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: s.body,
    })
      .then((r) => r.text())
      .catch(() => undefined),
  )
  const hit = await Promise.race([reached.then(() => true), sleep(20_000).then(() => false)])
  await target.instance.kill()
  campaign.kills++
  campaign.phasesHit.push({ scenario, phase, instance: target.instance.name, reached: hit })
  proxy.clear()
  db?.resume()
  await Promise.all(first)
  // A fleet instance comes back under a new INSTANCE_ID (as a replaced pod does): the dead one's
  // claims are then known orphaned once its heartbeat lapses. The same id again would leave them
  // held until PostgreSQL's stale-claim age (two minutes).
  target.restarts++
  await target.instance.start(all.length > 1 ? { INSTANCE_ID: `${target.instance.name}-${target.restarts}` } : {})
  const t = performance.now()
  await Promise.all(batch.map((s) => deliver(campaign, s, all)))
  campaign.log(
    `  ${hit ? 'killed' : 'killed (phase not seen in 20 s)'} ${target.instance.name} ${phaseNames[phase]}; restarted; ${batch.length} intents answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}
