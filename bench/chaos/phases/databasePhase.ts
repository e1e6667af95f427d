// The databases themselves, through the campaign's own relays (never the servers): PostgreSQL cut
// from every gateway and healed while executions are claimed and settled; one gateway partitioned
// from PostgreSQL for longer than a relayer lease, its journal write held across the partition and
// landing late (as TCP delivers it), then healed: every broadcast it makes meanwhile is checked,
// at the moment it reaches the node, against the lease table: it must never send from a key
// another instance holds (fencing); and Redis cut while executions go on (rate limits stay open,
// budgets divided among the live instances: dividedBudgetRound.ts).
import pg from 'pg'
import { type Hex, recoverTransactionAddress } from 'viem'
import type { Campaign, CampaignNode, Sent } from '../campaign.ts'
import { deliver } from '../deliver.ts'
import { dividedBudgetRound } from '../dividedBudgetRound.ts'
import { settled } from '../settled.ts'
import { sharesSettled } from '../sharesSettled.ts'
import type { Fleet } from './startFleet.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const simulation = ['eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1']

/** The parts, each selectable on its own (run.ts --phases=): all by default. */
export type DatabaseFault = 'pgcut' | 'partition' | 'redis'

export async function databasePhase(
  campaign: Campaign,
  fleet: Fleet,
  parts: readonly DatabaseFault[] = ['pgcut', 'partition', 'redis'],
): Promise<void> {
  campaign.log(`\nthe databases, through the campaign's own relays: ${parts.join(', ')}`)
  const leases = new pg.Client({ connectionString: fleet.databaseUrl })
  await leases.connect()
  try {
    if (parts.includes('pgcut')) {
      await sharesSettled(fleet.nodes, campaign.devnet.anvil.chainId, 1, 60_000)
      await postgresCut(campaign, fleet)
    }
    if (parts.includes('partition')) {
      await sharesSettled(fleet.nodes, campaign.devnet.anvil.chainId, 1, 60_000)
      await partition(campaign, fleet, leases)
    }
    if (parts.includes('redis')) {
      await redisCut(campaign, fleet)
      await dividedBudgetRound(campaign, fleet)
    }
    await settled(campaign, fleet.nodes)
  } finally {
    await leases.end()
  }
}

const count = (campaign: Campaign, fault: string) => {
  campaign.otherFaults[fault] = (campaign.otherFaults[fault] ?? 0) + 1
}

/** Every gateway loses PostgreSQL (connections reset, new ones refused) once executions are under way, and gets it back. */
async function postgresCut(campaign: Campaign, { nodes, leaseTtlMs }: Fleet) {
  const batch = await campaign.makeIntents(
    campaign.quick ? 6 : 20,
    'database: PostgreSQL cut and healed mid-claim and settlement',
  )
  const t = performance.now()
  const delivering = Promise.all(batch.map((s) => deliver(campaign, s, nodes)))
  // Cut once a broadcast went out somewhere: claims, journal writes and settlements are under way.
  await Promise.race([Promise.race(nodes.map((n) => n.proxy.afterAnswer(['eth_sendRawTransaction']))), sleep(15_000)])
  for (const n of nodes) n.db!.cut()
  count(campaign, 'PostgreSQL cuts')
  const outage = campaign.quick ? leaseTtlMs / 2 : leaseTtlMs * 2
  await sleep(outage)
  for (const n of nodes) {
    n.db!.heal()
    n.proxy.clear()
  }
  await delivering
  campaign.log(
    `  PostgreSQL cut from every gateway for ${(outage / 1000).toFixed(1)} s mid-execution: ${batch.length} intents answered in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
}

/**
 * One gateway: an execution let past its simulation, its database link stalled (its journal write
 * held, its lease renewals too) until another instance took its key, then healed with the held
 * bytes delivered late. Every broadcast it makes from then on is checked against the lease table.
 */
async function partition(campaign: Campaign, fleet: Fleet, leases: pg.Client) {
  const { nodes, leaseTtlMs } = fleet
  const chain = `eip155:${campaign.devnet.anvil.chainId}`
  const target = nodes[Math.floor(campaign.random() * nodes.length)]!
  const idOf = (n: CampaignNode) => `${n.instance.name}-${n.restarts}`
  const rows = async () =>
    (
      await leases.query<{ relayer: string; instance_id: string; epoch: string; live: boolean }>(
        'SELECT relayer, instance_id, epoch, expires_at > now() AS live FROM relayer_leases WHERE chain_id = $1 AND relayer = ANY($2)',
        [chain, fleet.keys.map((k) => k.address)],
      )
    ).rows
  const before = (await rows()).filter((r) => r.live && r.instance_id === idOf(target))
  const batch = await campaign.makeIntents(
    campaign.quick ? 3 : 6,
    `database: ${target.instance.name} partitioned from PostgreSQL longer than a lease`,
  )
  const held = target.proxy.hold(simulation)
  const first = batch.map((s) =>
    fetch(`${target.instance.url}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: s.body,
      signal: AbortSignal.timeout(60_000),
    })
      .then((r) => r.text())
      .catch(() => undefined),
  )
  const simulated = await Promise.race([held, sleep(20_000).then(() => undefined)])
  const db = target.db!
  db.stall()
  const wrote = db.nextWrite()
  simulated?.forward()
  const writeHeld = await Promise.race([wrote.then(() => true), sleep(10_000).then(() => false)])
  const t = performance.now()
  count(campaign, 'partitions')
  // From now on each broadcast of the partitioned gateway is held at its proxy while the lease
  // table is read: what it sends must be from a key it holds at that moment.
  const violations: string[] = []
  let checked = 0
  target.proxy.inspect = {
    methods: new Set(['eth_sendRawTransaction']),
    async check(body) {
      for (const raw of rawTransactions(body)) {
        checked++
        const from = await recoverTransactionAddress({ serializedTransaction: raw as never })
        const row = (await rows()).find((r) => r.relayer.toLowerCase() === from.toLowerCase())
        if (!row?.live || row.instance_id !== idOf(target))
          violations.push(
            `${target.instance.name} broadcast from ${from} while ${row ? `${row.instance_id} held it (epoch ${row.epoch}, ${row.live ? 'live' : 'expired'})` : 'nobody held it'}`,
          )
      }
    },
  }
  // Longer than a lease: another instance takes the key the partitioned one held.
  let moved: Array<{ relayer: string; to: string; epoch: string }> = []
  const deadline = Date.now() + leaseTtlMs * 6
  while (Date.now() < deadline) {
    await sleep(250)
    const now = await rows()
    moved = before.flatMap((b) => {
      const r = now.find((x) => x.relayer === b.relayer)
      return r?.live && r.instance_id !== idOf(target)
        ? [{ relayer: r.relayer, to: r.instance_id, epoch: r.epoch }]
        : []
    })
    if (before.length > 0 && moved.length === before.length) break
  }
  const partitionMs = performance.now() - t
  db.resume({ late: true })
  await Promise.all(first)
  await Promise.all(batch.map((s) => deliver(campaign, s, nodes)))
  // The partitioned gateway's late writes land and its renewals resume: watched a while longer.
  await sleep(leaseTtlMs * 2)
  target.proxy.inspect = undefined
  campaign.checks.push({
    phase: 'database',
    name: 'partition longer than a lease',
    ok: before.length > 0 && moved.length === before.length && writeHeld,
    detail: `${target.instance.name} held ${before.map((b) => `${b.relayer} (epoch ${b.epoch})`).join(', ') || 'no key'}; ${writeHeld ? 'its journal write held across the partition, delivered late' : 'NO journal write seen to hold'}; after ${(partitionMs / 1000).toFixed(1)} s taken by ${moved.map((m) => `${m.to} (epoch ${m.epoch})`).join(', ') || 'nobody'}`,
  })
  campaign.checks.push({
    phase: 'database',
    name: 'fencing: the partitioned gateway never broadcast from a key it no longer held',
    ok: violations.length === 0,
    detail:
      violations.length === 0
        ? `${checked} of its broadcasts checked against the lease table as they reached the node`
        : violations.join('; '),
  })
  campaign.log(
    `  ${target.instance.name} partitioned from PostgreSQL for ${(partitionMs / 1000).toFixed(1)} s (lease ${leaseTtlMs / 1000} s), healed; ${batch.length} intents answered; ${checked} of its broadcasts checked, ${violations.length} from a key not its own`,
  )
}

/** Redis unreachable (connections reset, new ones refused) while executions go on: the rate limits stay open, nothing fails for it. */
async function redisCut(campaign: Campaign, { nodes, redisLink }: Fleet) {
  const batch = await campaign.makeIntents(campaign.quick ? 6 : 20, 'database: Redis cut (rate limits open)')
  const refused: string[] = []
  const watch = (s: Sent) => (status: number, body: string) => {
    if (status === 429 || status >= 500) refused.push(`${status} for ${s.hash.slice(0, 10)}: ${body.slice(0, 160)}`)
  }
  redisLink.cut()
  count(campaign, 'Redis cuts')
  const t = performance.now()
  await Promise.all(batch.map((s) => deliver(campaign, s, nodes, { onAnswer: watch(s) })))
  const cutMs = performance.now() - t
  redisLink.heal()
  // A 503 while a relayer key changes hands is the fleet's, not Redis's: only 429 and other 5xx count.
  const wrong = refused.filter((r) => !r.startsWith('503'))
  campaign.checks.push({
    phase: 'database',
    name: 'Redis cut: executes go on, rate limits open',
    ok: wrong.length === 0,
    detail: `${batch.length} intents answered in ${(cutMs / 1000).toFixed(1)} s with Redis unreachable; ${wrong.length === 0 ? 'no 429 or 500' : wrong.slice(0, 5).join('; ')}${refused.length > wrong.length ? ` (${refused.length - wrong.length} answered 503 and retried)` : ''}`,
  })
  campaign.log(`  Redis cut from the fleet: ${batch.length} intents answered in ${(cutMs / 1000).toFixed(1)} s; healed`)
}

/** The signed transactions of a JSON-RPC request or batch calling eth_sendRawTransaction. */
function rawTransactions(body: Buffer): Hex[] {
  try {
    const parsed = JSON.parse(body.toString()) as
      | { method?: string; params?: unknown[] }
      | Array<{ method?: string; params?: unknown[] }>
    return (Array.isArray(parsed) ? parsed : [parsed])
      .filter((r) => r.method === 'eth_sendRawTransaction')
      .map((r) => r.params?.[0] as Hex)
  } catch {
    return []
  }
}
