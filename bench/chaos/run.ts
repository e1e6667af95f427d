// The fault campaign (npm run chaos): real gateway processes on a real anvil, killed with SIGKILL at
// each phase of an execution and fed RPC faults and orphaned blocks, first one gateway on SQLite,
// then three on one PostgreSQL journal sharing relayer keys by lease (rate limits in Redis), then
// the databases themselves cut and healed. Clients retry as agents do; at the end the chain is
// asked whether every intent ran exactly once and no relayer nonce is left behind a gap, and each
// phase's own checks are added. Each phase is a file in phases/.
//   --quick                 a small run
//   --phases=sqlite,fleet,database   only these (in the campaign's order); default all. `database`
//                           is pgcut, partition and redis, each also selectable alone
//   CHAOS_SEED              repeats a run's faults
//   CHAOS_DATABASE_URL      PostgreSQL's admin URL (a database of the campaign's own is created and dropped)
//   CHAOS_REDIS_URL         the Redis of the fleet's rate limits (own key prefix, deleted after; reached through a relay the campaign cuts)
//   CHAOS_RESULTS_DIR       where the run's JSON goes (default bench/results)
// Exit code 0 when the verdict holds.
import { loadavg } from 'node:os'
import { createDevClients, startDevnet } from '../gatewayParts.ts'
import { type Campaign, createCampaign } from './campaign.ts'
import { clockPhase } from './phases/clockPhase.ts'
import { type DatabaseFault, databasePhase } from './phases/databasePhase.ts'
import { diskFullPhase } from './phases/diskFullPhase.ts'
import { fleetPhase } from './phases/fleetPhase.ts'
import { paidPhase } from './phases/paidPhase.ts'
import { solanaPaidPhase } from './phases/solanaPaidPhase.ts'
import { solanaPhase } from './phases/solanaPhase.ts'
import { sqlitePhase } from './phases/sqlitePhase.ts'
import { startFleet } from './phases/startFleet.ts'
import { suiPhase } from './phases/suiPhase.ts'
import { seeded } from './seeded.ts'
import { verdict } from './verdict.ts'

const quick = process.argv.includes('--quick')
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 1e9))
const allPhases = [
  'sqlite',
  'paid',
  'diskfull',
  'fleet',
  'pgcut',
  'partition',
  'redis',
  'clock',
  'solana',
  'solanapaid',
  'sui',
] as const
const only = process.argv
  .find((a) => a.startsWith('--phases='))
  ?.slice('--phases='.length)
  .split(',')
  .flatMap((p) => (p === 'database' ? ['pgcut', 'partition', 'redis'] : [p]))
const unknown = only?.filter((p) => !(allPhases as readonly string[]).includes(p)) ?? []
if (unknown.length > 0) {
  process.stderr.write(`unknown phase(s) ${unknown.join(', ')}: the phases are ${allPhases.join(', ')}\n`)
  process.exit(2)
}
const runs = (phase: (typeof allPhases)[number]) => !only || only.includes(phase)
const log = (line: string) => process.stdout.write(`${line}\n`)

let campaign: Campaign | undefined
const cleanups: Array<() => Promise<unknown>> = []

async function main(): Promise<boolean> {
  const started = performance.now()
  log(
    `fault campaign${quick ? ' (--quick)' : ''}: seed ${seed} (CHAOS_SEED=${seed} repeats its faults), phases ${allPhases.filter(runs).join(', ')}, EVM executions ${process.env.CHAOS_BUNDLES === '0' ? 'each a transaction of its own (CHAOS_BUNDLES=0)' : 'in IntentBundler runs'}, load average ${loadavg()[0]!.toFixed(2)}`,
  )
  const devnet = await startDevnet({ blockTime: 1 })
  cleanups.push(() => devnet.stop())
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  const fromBlock = await publicClient.getBlockNumber()
  campaign = createCampaign({
    quick,
    seed,
    databaseUrl: process.env.CHAOS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.CHAOS_REDIS_URL ?? 'redis://127.0.0.1:6379',
    devnet,
    random: seeded(seed),
    log,
  })
  const c = campaign
  // Each phase's wall time, so that a run over its time says where it went.
  const timed = async (name: string, phase: () => Promise<void>) => {
    const t = performance.now()
    await phase()
    log(`  (${name}: ${((performance.now() - t) / 1000).toFixed(0)} s)`)
  }
  if (runs('sqlite')) await timed('sqlite', () => sqlitePhase(c))
  if (runs('paid')) await timed('paid', () => paidPhase(c))
  if (runs('diskfull')) await timed('diskfull', () => diskFullPhase(c))
  const databaseFaults: DatabaseFault[] = (['pgcut', 'partition', 'redis'] as const).filter(runs)
  if (runs('fleet') || databaseFaults.length > 0 || runs('clock')) {
    const fleet = await startFleet(c)
    if (runs('fleet')) await timed('fleet', () => fleetPhase(c, fleet))
    if (databaseFaults.length > 0) await timed(databaseFaults.join(', '), () => databasePhase(c, fleet, databaseFaults))
    if (runs('clock')) await timed('clock', () => clockPhase(c, fleet))
  }
  if (runs('solana')) await timed('solana', () => solanaPhase(c))
  if (runs('solanapaid')) await timed('solanapaid', () => solanaPaidPhase(c))
  if (runs('sui')) await timed('sui', () => suiPhase(c))
  return verdict(campaign, { fromBlock, started })
}

async function cleanUp() {
  const all = [...cleanups, ...(campaign?.cleanups ?? [])]
  for (const c of all.reverse())
    await c().catch((err: unknown) => process.stderr.write(`cleanup: ${(err as Error).message}\n`))
}
process.once('SIGINT', () => {
  log('\ninterrupted: stopping the gateways, proxies and anvil, dropping the database')
  void cleanUp().finally(() => process.exit(130))
})
process.once('SIGTERM', () => void cleanUp().finally(() => process.exit(143)))
let ok = false
try {
  ok = await main()
} catch (err) {
  process.stderr.write(
    `\nthe fault campaign failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  )
}
await cleanUp()
process.exit(ok ? 0 : 1)
