// With Redis unreachable, each instance of the fleet counts budgets in its own memory and holds
// itself to 1/N of each limit, N being the live instances it knows (README, "Counts are shared"):
// never unbounded. The fleet is restarted with a GAS_BUDGET_PER_CLIENT of about six executes' fees
// (measured on a probe execute) under a fresh Redis prefix, Redis is cut, and each instance is fed
// new intents one at a time until it refuses with 429 gas-budget-spent. Divided, the three admit
// about the budget between them; each holding the whole budget would admit about three times it.
// Healed, the outage's counts are written to Redis and the shared total applies again. Then the
// fleet is restarted as it was.
import type { Hex } from 'viem'
import type { Campaign, CampaignNode, Sent } from './campaign.ts'
import { deliver } from './deliver.ts'
import type { Fleet } from './phases/startFleet.ts'
import { rpc } from './rpc.ts'
import { sharesSettled } from './sharesSettled.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const budgetSpentType = 'urn:intent-gateway:problem:gas-budget-spent'

type Answer = { status: number; type?: string | undefined; detail?: string | undefined }

/** POSTs one intent to one gateway until it is executed (200), or refused (4xx other than in flight); 202 and 503 again. */
async function executeOn(node: CampaignNode, sent: Sent, timeoutMs = 60_000): Promise<Answer> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const res = await fetch(`${node.instance.url}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: sent.body,
        signal: AbortSignal.timeout(30_000),
      })
      const body = (await res.json().catch(() => ({}))) as { type?: string; detail?: string }
      sent.answer = `${res.status} from ${node.instance.name}: ${JSON.stringify(body).slice(0, 200)}`
      if (res.status !== 202 && res.status !== 503) return { status: res.status, type: body.type, detail: body.detail }
    } catch (err) {
      sent.answer = `no answer from ${node.instance.name}: ${(err as Error).message}`
    }
    if (Date.now() > deadline) return { status: 0, detail: sent.answer }
    await sleep(300)
  }
}

/** The fee the relayer paid for an intent the fleet executed: its transaction's gas used times its price. */
async function feeOf(campaign: Campaign, node: CampaignNode, hash: Hex): Promise<bigint> {
  const record = (await (await fetch(`${node.instance.url}/intents/${hash}`)).json()) as Record<string, unknown>
  const tx = (record.transactionHash ?? (record.execution as Record<string, unknown> | undefined)?.transactionHash) as
    | string
    | undefined
  if (!tx) throw new Error(`no transaction for the probe intent ${hash}: ${JSON.stringify(record).slice(0, 300)}`)
  const receipt = (await rpc(campaign.devnet.anvil.rpcUrl, 'eth_getTransactionReceipt', [tx])) as {
    gasUsed: string
    effectiveGasPrice: string
  }
  return BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
}

/** Restarts every gateway of the fleet (SIGTERM, then a start under a new INSTANCE_ID) with `extra` settings. */
async function restartFleet(campaign: Campaign, fleet: Fleet, extra: Record<string, string>): Promise<void> {
  await Promise.all(
    fleet.nodes.map(async (n) => {
      await n.instance.stop({ again: true })
      n.restarts++
      await n.instance.start({ INSTANCE_ID: `${n.instance.name}-${n.restarts}`, ...extra })
    }),
  )
  await sharesSettled(fleet.nodes, campaign.devnet.anvil.chainId, 1, 60_000)
}

export async function dividedBudgetRound(campaign: Campaign, fleet: Fleet): Promise<void> {
  const { nodes, redisLink } = fleet
  const label = 'database: Redis cut, budgets divided among the live instances'
  const [probe] = await campaign.makeIntents(1, label)
  await deliver(campaign, probe!, [nodes[0]!])
  const fee = await feeOf(campaign, nodes[0]!, probe!.hash)
  const budget = fee * 6n
  await restartFleet(campaign, fleet, {
    GAS_BUDGET_PER_CLIENT: String(budget),
    REDIS_PREFIX: `${fleet.redisPrefix}budget:`,
  })
  redisLink.cut()
  campaign.otherFaults['Redis cuts'] = (campaign.otherFaults['Redis cuts'] ?? 0) + 1
  // Each instance on its own, one intent at a time (its spend is counted before the next is checked).
  const each = await Promise.all(
    nodes.map(async (node) => {
      let admitted = 0
      // Each admitted execute's own fee, read from its receipt: executes differ in gas (a nonce that
      // opens a fresh word of the ledger costs ~17,000 more), so none is assumed to cost the probe's.
      const fees: bigint[] = []
      for (let i = 0; i < 12; i++) {
        const [sent] = await campaign.makeIntents(1, label, { counted: false })
        const answer = await executeOn(node, sent!)
        if (answer.status === 200) {
          campaign.intents.push(sent!)
          admitted++
          fees.push(await feeOf(campaign, node, sent!.hash))
          await sleep(200)
          continue
        }
        return { node, admitted, fees, answer }
      }
      return { node, admitted, fees, answer: undefined }
    }),
  )
  // The refusal names this instance's own total and its part: "(T of B …) (Redis unreachable: … held to 1/N of the limit …)".
  const parsed = each.map(({ node, admitted, fees, answer }) => {
    const total = answer?.detail?.match(/\((\d+) of (\d+) in the chain's smallest unit/)
    const share = answer?.detail?.match(/held to 1\/(\d+) of the limit/)
    return {
      name: node.instance.name,
      admitted,
      refused: answer?.status === 429 && answer.type === budgetSpentType && share !== null,
      total: total ? BigInt(total[1]!) : 0n,
      beforeLast: fees.slice(0, -1).reduce((a, b) => a + b, 0n),
      parts: share ? Number(share[1]) : 0,
      answer,
    }
  })
  // Divided: before its last admitted execute each instance was under its part, so together they spent less than the budget before their last ones.
  const beforeLast = parsed.reduce((sum, p) => sum + p.beforeLast, 0n)
  const spent = parsed.reduce((sum, p) => sum + p.total, 0n)
  const allRefused = parsed.every((p) => p.refused && p.parts >= 1)
  campaign.checks.push({
    phase: 'database',
    name: 'Redis cut: budgets divided among the live instances, never unbounded',
    ok: allRefused && beforeLast < budget,
    detail: `GAS_BUDGET_PER_CLIENT ${budget} wei (6 × a probe's fee ${fee}); ${parsed
      .map(
        (p) =>
          `${p.name} admitted ${p.admitted} (${p.total} wei) then ${p.refused ? `refused, held to 1/${p.parts}` : `NOT refused: ${JSON.stringify(p.answer ?? 'still admitting after 12').slice(0, 200)}`}`,
      )
      .join(
        '; ',
      )}; the fleet spent ${spent} wei, ${beforeLast} before each one's last execute (${beforeLast < budget ? 'under' : 'NOT under'} the budget)`,
  })
  campaign.log(
    `  Redis cut, budget ${budget} wei: ${parsed.map((p) => `${p.name} ${p.admitted} then ${p.refused ? `429 (1/${p.parts})` : 'not refused'}`).join(', ')}`,
  )
  // Healed: each instance writes what it counted meanwhile to Redis once it reconnects, and the shared total (all of theirs) refuses.
  redisLink.heal()
  const sharedTotalOf = (answer: Answer | undefined) => {
    const m =
      answer?.status === 429 && !answer.detail?.includes('Redis unreachable')
        ? answer.detail?.match(/\((\d+) of (\d+) in the chain's smallest unit/)
        : undefined
    return m ? BigInt(m[1]!) : undefined
  }
  let last: Answer | undefined
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const [after] = await campaign.makeIntents(1, label, { counted: false })
    last = await executeOn(nodes[0]!, after!)
    if (last.status === 200) campaign.intents.push(after!)
    if ((sharedTotalOf(last) ?? 0n) >= spent) break
    await sleep(1_000)
  }
  const shared = sharedTotalOf(last)
  campaign.checks.push({
    phase: 'database',
    name: "Redis healed: the outage's counts are shared again",
    ok: shared !== undefined && shared >= spent,
    detail: `${last?.status}: ${last?.detail?.slice(0, 240)} (the instances counted ${spent} wei during the outage)`,
  })
  await restartFleet(campaign, fleet, {})
}
