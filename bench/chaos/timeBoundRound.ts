// Intents with a validBefore a few seconds ahead of the chain's time, sent across the fleet while
// one gateway's wall clock is stepped (clockPhase.ts). What must hold: none ran after its
// validBefore on chain (the chain's time decides, not a gateway's), none was refused as expired
// (0x21) while the chain's time was still before it, and each either ran once or expired. Half are
// sent at once, half from the last second of chain time before the bound on.
import type { Hex } from 'viem'
import { createDevClients, intentExecutorArtifact } from '../gatewayParts.ts'
import type { Campaign, CampaignNode, Sent } from './campaign.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export type TimeBoundRound = { finish(): Promise<void> }

/** Starts delivering `count` intents valid for `windowS` seconds of chain time; `finish` waits for them and adds the check. */
export async function startTimeBoundRound(
  campaign: Campaign,
  nodes: CampaignNode[],
  { count, windowS }: { count: number; windowS: number },
): Promise<TimeBoundRound> {
  const { publicClient } = createDevClients(campaign.devnet.anvil.rpcUrl, campaign.devnet.anvil.chainId)
  const fromBlock = await publicClient.getBlockNumber()
  const validBefore = (await publicClient.getBlock()).timestamp + BigInt(windowS)
  // Not counted among the verdict's exactly-once intents: an expired one rightly never runs.
  const batch = await campaign.makeIntents(count, `clock: valid for ${windowS} s of chain time`, {
    validBefore,
    counted: false,
  })
  const early: string[] = []
  const unanswered: Sent[] = []
  const expired = new Set<Hex>()
  const deliverOne = async (s: Sent) => {
    const deadline = Date.now() + (windowS + 90) * 1000
    for (;;) {
      const live = nodes.filter((n) => n.instance.alive)
      const n = live[Math.floor(campaign.random() * live.length)]
      if (n) {
        try {
          const res = await fetch(`${n.instance.url}/intents/execute`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: s.body,
            signal: AbortSignal.timeout(30_000),
          })
          const text = await res.text()
          const status = res.headers.get('x-erc1066-status')
          s.answer = `${res.status} ${status ?? ''} from ${n.instance.name}: ${text.slice(0, 160)}`
          if (res.status === 200) return
          if (status === '0x21') {
            // Refused as expired: the chain's time then must have reached validBefore (a block's time is at least its parent's + 1).
            const head = (await publicClient.getBlock()).timestamp
            if (head + 1n < validBefore)
              early.push(`${s.hash} by ${n.instance.name} at chain time ${head} (validBefore ${validBefore})`)
            expired.add(s.hash)
            return
          }
        } catch (err) {
          s.answer = `no answer from ${n.instance.name}: ${(err as Error).message}`
        }
      }
      if (Date.now() > deadline) {
        unanswered.push(s)
        return
      }
      await sleep(300 + campaign.random() * 300)
    }
  }
  // Half at once (they should run), half from the last second before the bound on, where a
  // gateway's own clock would make it run one too late or refuse one too early.
  const atTheBound = async (s: Sent) => {
    while ((await publicClient.getBlock()).timestamp + 1n < validBefore) await sleep(250)
    await deliverOne(s)
  }
  const delivering = Promise.all(batch.map((s, i) => (i % 2 === 0 ? deliverOne(s) : atTheBound(s))))
  return {
    async finish() {
      await delivering
      const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
      const logs = await publicClient.getLogs({ address: campaign.devnet.contracts.executor, event, fromBlock })
      const hashes = new Set(batch.map((b) => b.hash))
      const runs = new Map<Hex, number>()
      const late: string[] = []
      for (const l of logs) {
        const hash = l.args.intentHash as Hex
        if (!hashes.has(hash)) continue
        runs.set(hash, (runs.get(hash) ?? 0) + 1)
        const block = await publicClient.getBlock({ blockNumber: l.blockNumber! })
        if (block.timestamp >= validBefore) late.push(`${hash} in block ${l.blockNumber} at ${block.timestamp}`)
      }
      const twice = [...runs].filter(([, n]) => n > 1).map(([h, n]) => `${h} ×${n}`)
      const ranAndExpired = batch.filter((b) => runs.has(b.hash) && expired.has(b.hash)).map((b) => b.hash)
      const neither = batch.filter((b) => !runs.has(b.hash) && !expired.has(b.hash) && !unanswered.includes(b))
      campaign.checks.push({
        phase: 'clock',
        name: 'no intent ran after its validBefore on chain or was refused as expired before it',
        ok: late.length + early.length + twice.length + ranAndExpired.length + unanswered.length + neither.length === 0,
        detail: `${batch.length} intents valid until chain time ${validBefore}: ${runs.size} ran once, ${expired.size} refused as expired (0x21)${[
          late.length > 0 ? `; ran at or after validBefore: ${late.join(', ')}` : '',
          early.length > 0 ? `; refused as expired early: ${early.join(', ')}` : '',
          twice.length > 0 ? `; ran more than once: ${twice.join(', ')}` : '',
          ranAndExpired.length > 0 ? `; answered expired although they ran: ${ranAndExpired.join(', ')}` : '',
          unanswered.length > 0
            ? `; never answered 200 or 0x21: ${unanswered.map((u) => `${u.hash} (${u.answer})`).join(', ')}`
            : '',
          neither.length > 0 ? `; not run and not refused: ${neither.map((u) => u.hash).join(', ')}` : '',
        ].join('')}`,
      })
    },
  }
}
