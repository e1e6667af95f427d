// Clock steps (issue 43, item 5): a fourth gateway joins the PostgreSQL fleet under libfaketime
// (faketimeProbe.ts shows a running node sees the steps), and while intents are delivered across
// the fleet its wall clock is stepped back 30 s, then forward 30 s (FAKETIME_TIMESTAMP_FILE re-read
// on every call, FAKETIME_DONT_FAKE_MONOTONIC=1). Leases expire by PostgreSQL's clock; the lease
// table is sampled all along: a relayer's epoch never goes back and each epoch is held by one
// instance. Intents whose validBefore falls mid-step: none runs after it on chain, none is refused
// as expired before it (timeBoundRound.ts). No event skipped: some intents' event streams are
// followed on d across the steps (reconnecting as an EventSource does), and every event of the
// batch reaches the fleet's webhook receiver, its signature (timestamped by d's clock among others)
// verified. Exactly once and the relayer nonces are the verdict's.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { toHex } from 'viem'
import type { Campaign, Sent } from '../campaign.ts'
import { deliver } from '../deliver.ts'
import { type Followed, followEvents } from '../followEvents.ts'
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
    SSE_MAX_STREAMS_PER_CLIENT: '64',
    ...fleet.webhookSettings,
  })
  const nodes = [...fleet.nodes, node]
  campaign.log(
    `\nclock steps: gateway d joins the fleet under libfaketime; its wall clock steps -30 s, then +30 s, mid-run`,
  )
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
  // Event streams on d, the gateway whose clock steps, followed from the start to each intent's end.
  const streamed = batch.slice(0, campaign.quick ? 5 : 20)
  const following = Promise.all(streamed.map((s) => followEvents(node.instance.url, s.hash)))
  // Intents whose validBefore falls while the clock is stepped: the chain's time decides, not d's.
  const timeBound = await startTimeBoundRound(campaign, nodes, {
    count: campaign.quick ? 10 : 40,
    windowS: Math.ceil((2_000 + fleet.leaseTtlMs * 2) / 1000) + 2,
  })
  await sleep(2_000)
  writeFileSync(offsetFile, '-30s\n')
  campaign.otherFaults['clock steps'] = (campaign.otherFaults['clock steps'] ?? 0) + 1
  await sleep(fleet.leaseTtlMs * 2)
  writeFileSync(offsetFile, '+30s\n')
  campaign.otherFaults['clock steps'] = (campaign.otherFaults['clock steps'] ?? 0) + 1
  await delivering
  await timeBound.finish()
  await settled(campaign, nodes)
  const live = await following
  await eventsChecks(campaign, fleet, batch, streamed, live)
  sampling = false
  await sampler
  await leases.end()
  const twice = [...holders].flatMap(([relayer, byEpoch]) =>
    [...byEpoch]
      .filter(([, set]) => set.size > 1)
      .map(([epoch, set]) => `${relayer} epoch ${epoch}: ${[...set].join(', ')}`),
  )
  campaign.checks.push({
    phase,
    name: 'no relayer key held twice across clock steps',
    ok: twice.length === 0 && epochWentBack.length === 0 && samples > 0,
    detail: `${samples} samples of the lease table; ${twice.length === 0 ? 'each epoch held by one instance' : twice.join('; ')}; ${epochWentBack.length === 0 ? 'no epoch went back' : epochWentBack.join('; ')}`,
  })
}

/** Every event the journal now tells of the batch (read from a, whose clock is right) reached the webhook receiver verified, and d's live streams skipped none. */
async function eventsChecks(
  campaign: Campaign,
  fleet: Fleet,
  batch: Sent[],
  streamed: Sent[],
  live: Followed[],
): Promise<void> {
  const phase = 'clock'
  const truth = new Map<string, string[]>()
  for (let i = 0; i < batch.length; i += 4) {
    const read = await Promise.all(
      batch.slice(i, i + 4).map((s) => followEvents(fleet.nodes[0]!.instance.url, s.hash, { timeoutMs: 30_000 })),
    )
    read.forEach((r, j) => truth.set(batch[i + j]!.hash, r.ids))
  }
  const skipped = streamed.flatMap((s, i) => {
    const seen = live[i]!.ids
    const want = truth.get(s.hash) ?? []
    const missing = want.filter((id) => !seen.includes(id))
    const order = seen.filter((id) => want.includes(id))
    const outOfOrder = order.some((id, k) => k > 0 && want.indexOf(id) < want.indexOf(order[k - 1]!))
    return missing.length > 0 || outOfOrder || want.length === 0
      ? [
          `${s.hash.slice(0, 10)}: ${missing.length} of ${want.length} missing${outOfOrder ? ', out of order' : ''}${live[i]!.error ? ` (${live[i]!.error})` : ''}`,
        ]
      : []
  })
  const connections = live.reduce((n, f) => n + f.connections, 0)
  campaign.checks.push({
    phase,
    name: 'no event skipped on the event streams of the gateway whose clock stepped',
    ok: skipped.length === 0,
    detail: `${streamed.length} intents' streams followed on d (${connections} connections, resumed by Last-Event-ID), ${live.reduce((n, f) => n + f.ids.length, 0)} events; ${skipped.length === 0 ? 'each had every event the journal tells, in order' : skipped.join('; ')}`,
  })
  const want = [...truth.values()].flat()
  const deadline = Date.now() + 60_000
  const delivered = () => new Set(fleet.webhooks.deliveries.map((d) => d.id))
  let missing = want.filter((id) => !delivered().has(id))
  while (missing.length > 0 && Date.now() < deadline) {
    await sleep(500)
    const got = delivered()
    missing = missing.filter((id) => !got.has(id))
  }
  campaign.checks.push({
    phase,
    name: 'no webhook skipped across the clock steps',
    ok: missing.length === 0 && fleet.webhooks.badSignatures.length === 0 && want.length > 0,
    detail: `${want.length} events of the batch's ${batch.length} intents; ${missing.length === 0 ? 'each delivered to the receiver' : `${missing.length} never delivered: ${missing.slice(0, 3).join(', ')}`}; ${fleet.webhooks.badSignatures.length} deliveries refused by Standard Webhooks' verification (signature, timestamp within 5 min)`,
  })
}
