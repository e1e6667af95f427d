// A batch of Solana intents while 12% of RPC requests meet a fault at the fault proxy, the paid
// phase's settlements included (a settlement whose answer is lost waits for its confirmation).
import type { Campaign } from './campaign.ts'
import type { FaultKind } from './faultProxy.ts'
import type { SolanaRounds } from './solanaRounds.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const solanaFaultKinds: FaultKind[] = ['http500', 'timeout', 'reset']

/** A batch while 12% of RPC requests meet a fault (HTTP 500, no answer, a reset after the node got the request), for `windowMs` at most. */
export async function solanaFaultRound(
  campaign: Campaign,
  r: SolanaRounds,
  count: number,
  windowMs: number,
): Promise<void> {
  const { proxy } = r.node
  const batch = r.make(count, `${r.scenario}: RPC faults`)
  const count0 = () => Object.values(proxy.faults).reduce((a, b) => a + b, 0)
  const before = count0()
  proxy.faultRate(0.12, solanaFaultKinds, campaign.random)
  const t = performance.now()
  const delivering = Promise.all(batch.map((s) => r.deliver(s)))
  await Promise.race([delivering, sleep(windowMs)])
  proxy.faultRate(0, solanaFaultKinds, campaign.random)
  await delivering
  const faults = count0() - before
  campaign.log(
    `  ${batch.length} intents through ${faults} RPC faults: answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}
