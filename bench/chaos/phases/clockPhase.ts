// Clock steps (issue 43, item 5): a fourth gateway joins the PostgreSQL fleet under libfaketime
// (faketimeProbe.ts shows a running node sees the steps), and while intents are delivered across
// the fleet its wall clock is stepped back 30 s, then forward 30 s (FAKETIME_TIMESTAMP_FILE re-read
// on every call, FAKETIME_DONT_FAKE_MONOTONIC=1). Leases expire by PostgreSQL's clock; the lease
// table is sampled all along: a relayer's epoch never goes back and each epoch is held by one
// instance. Intents whose validBefore falls mid-step: none runs after it on chain, none is refused
// as expired before it (timeBoundRound.ts). Exactly once and the relayer nonces are the verdict's.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { toHex } from 'viem'
import type { Campaign } from '../campaign.ts'
import { deliver } from '../deliver.ts'
import { settled } from '../settled.ts'
import { startTimeBoundRound } from '../timeBoundRound.ts'
import type { Fleet } from './startFleet.ts'

const libfaketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function clockPhase(campaign: Campaign, fleet: Fleet): Promise<void> {
  const phase = 'clock'
  if (!existsSync(libfaketime)) throw new Error(`the clock phase needs ${libfaketime}: apt-get install -y faketime`)
  const offsetFile = join(mkdtempSync(join(tmpdir(), 'chaos-clock-')), 'offset')
  writeFileSync(offsetFile, '+0\n')
  const node = await campaign.startNode('d', {
    DATABASE_URL: fleet.databaseUrl,
    INSTANCE_ID: 'd',
    RELAYER_PRIVATE_KEYS: fleet.keys.map((a) => toHex(a.getHdKey().privateKey!)).join(','),
    RELAYER_LEASE_TTL_MS: String(fleet.leaseTtlMs),
    REDIS_URL: campaign.redisUrl,
    REDIS_PREFIX: fleet.redisPrefix,
    LD_PRELOAD: libfaketime,
    FAKETIME_TIMESTAMP_FILE: offsetFile,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  })
  const nodes = [...fleet.nodes, node]
  campaign.log(`\nclock steps: gateway d joins the fleet under libfaketime; its wall clock steps -30 s, then +30 s, mid-run`)
  // The lease table, sampled: relayer -> epoch -> the instances seen holding it.
  const leases = new pg.Client({ connectionString: fleet.databaseUrl })
  await leases.connect()
  const holders = new Map<string, Map<string, Set<string>>>()
  const epochWentBack: string[] = []
  const lastEpoch = new Map<string, bigint>()
  let sampling = true
  let samples = 0
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await leases.query<{ relayer: string; instance_id: string; epoch: string }>(
        'SELECT relayer, instance_id, epoch::text AS epoch FROM relayer_leases WHERE chain_id = $1 AND expires_at > now()',
        [String(campaign.devnet.anvil.chainId)],
      )
      samples++
      for (const r of rows) {
        const epoch = BigInt(r.epoch)
        const last = lastEpoch.get(r.relayer)
        if (last !== undefined && epoch < last) epochWentBack.push(`${r.relayer} ${last} -> ${epoch}`)
        lastEpoch.set(r.relayer, epoch)
        const byEpoch = holders.get(r.relayer) ?? new Map<string, Set<string>>()
        holders.set(r.relayer, byEpoch)
        const set = byEpoch.get(r.epoch) ?? new Set<string>()
        byEpoch.set(r.epoch, set)
        set.add(r.instance_id)
      }
      await sleep(100)
    }
  })()
  const batch = await campaign.makeIntents(campaign.quick ? 30 : 150, 'clock: one gateway stepped -30 s then +30 s')
  const delivering = Promise.all(batch.map((s) => deliver(campaign, s, nodes)))
  // Intents whose validBefore falls while the clock is stepped: the chain's time decides, not d's.
  const timeBound = await startTimeBoundRound(campaign, nodes, { count: campaign.quick ? 10 : 40, windowS: Math.ceil((2_000 + fleet.leaseTtlMs * 2) / 1000) + 2 })
  await sleep(2_000)
  writeFileSync(offsetFile, '-30s\n')
  campaign.otherFaults['clock steps'] = (campaign.otherFaults['clock steps'] ?? 0) + 1
  await sleep(fleet.leaseTtlMs * 2)
  writeFileSync(offsetFile, '+30s\n')
  campaign.otherFaults['clock steps'] = (campaign.otherFaults['clock steps'] ?? 0) + 1
  await delivering
  await timeBound.finish()
  await settled(campaign, nodes)
  sampling = false
  await sampler
  await leases.end()
  const twice = [...holders].flatMap(([relayer, byEpoch]) => [...byEpoch].filter(([, set]) => set.size > 1).map(([epoch, set]) => `${relayer} epoch ${epoch}: ${[...set].join(', ')}`))
  campaign.checks.push({
    phase,
    name: 'no relayer key held twice across clock steps',
    ok: twice.length === 0 && epochWentBack.length === 0 && samples > 0,
    detail: `${samples} samples of the lease table; ${twice.length === 0 ? 'each epoch held by one instance' : twice.join('; ')}; ${epochWentBack.length === 0 ? 'no epoch went back' : epochWentBack.join('; ')}`,
  })
}
