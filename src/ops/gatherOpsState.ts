// The console's snapshot: everything the page shows, gathered through the existing ports (chains'
// descriptions, the journal, its payments, the switches' store, the activity recorded here). What
// has no source yet is left out rather than made up (see docs: the console's known gaps).

import { redactUrl } from '../config/redactUrl.ts'
import type { ChainRegistry } from '../intents/createChainRegistry.ts'
import type { Journal } from '../ports/journal.ts'
import type { OpsAuditEntry, OpsSwitchStore } from '../ports/opsSwitchStore.ts'
import { describeEndpoint } from '../webhooks/describeEndpoint.ts'
import type { OpsActivity } from './createOpsActivity.ts'
import type { OpsSwitches } from './createOpsSwitches.ts'
import { type IntentView, toIntentView } from './toIntentView.ts'

export type OpsStateContext = {
  registry: ChainRegistry
  journal: Journal
  store: OpsSwitchStore
  switches: OpsSwitches
  activity: OpsActivity
  stuckAfterMs: number
  /** How many settled executions the page lists (OPS_SETTLED_SHOWN). */
  settledShown: number
  /** The last settled executions the feed saw (newest first). */
  settled: () => IntentView[]
  /** Each chain's relayer balance over time: the spend rate, and so the runway. */
  balances: Map<string, Array<{ t: number; balance: bigint }>>
  /** The relayer's spend on a chain against RELAYER_SPEND_BUDGET (the execution guard's count); absent or undefined: no budget. */
  budget?:
    | ((chainId: string) => Promise<{ spent: number; budget: number; windowSeconds: number } | undefined> | undefined)
    | undefined
}

const sampleWindowMs = 15 * 60_000

export async function gatherOpsState(ctx: OpsStateContext) {
  const now = Date.now()
  const { registry, journal, store, switches, activity } = ctx
  const chains = await Promise.all(
    registry.adapters.map(async (adapter) => {
      const d = adapter.describe()
      const [balance, accounts, health, budget] = await Promise.all([
        adapter.relayerBalance?.().catch(() => undefined),
        adapter.relayerAccounts?.().catch(() => undefined),
        adapter.getHealth().catch(() => undefined),
        ctx.budget?.(adapter.chainId)?.catch(() => undefined),
      ])
      const onChain = new Map((accounts ?? []).map((a) => [a.address.toLowerCase(), a]))
      const runway = balance === undefined ? undefined : runwayOf(ctx.balances, adapter.chainId, balance, now)
      const held = (
        d.relayers ?? (d.relayer ? [{ address: d.relayer, held: true, funded: true, inFlight: 0 }] : [])
      ).map((r) => ({
        address: r.address,
        held: r.held,
        funded: r.funded,
        inFlight: r.inFlight,
        /** The next nonce as this instance counts it (once read), and the key's own on chain. */
        nonce: r.nonce,
        onChainNonce: onChain.get(r.address.toLowerCase())?.nonce,
        balance: onChain.get(r.address.toLowerCase())?.balance.toString(),
        leaseHolder: r.held ? switches.instanceId : 'another instance',
      }))
      return {
        chainId: adapter.chainId,
        chainType: adapter.chainType,
        name: d.name,
        available: d.available,
        unavailableReason: d.unavailableReason,
        confirmations: adapter.confirmations ?? 1,
        /** The rule GET /chains publishes (describe()), not one the console works out. */
        finality: d.finality,
        headBlock: health?.blockNumber,
        currency: d.nativeCurrency.symbol,
        decimals: d.nativeCurrency.decimals,
        endpoints: d.endpoints.map((e) => ({
          url: redactUrl(e.url),
          source: e.source,
          status: e.status,
          latencyMs: e.latencyMs === undefined ? undefined : Math.round(e.latencyMs * 10) / 10,
          failures: e.failures,
        })),
        paused: view(switches.pausedOn(adapter.chainId)),
        relayerBalance: balance?.toString(),
        /** RELAYER_SPEND_BUDGET on this chain: spent in the window (spend no payment covered) and left; absent without a budget. */
        budget: budget && {
          spent: integer(budget.spent),
          left: integer(Math.max(0, budget.budget - budget.spent)),
          windowSeconds: budget.windowSeconds,
        },
        spendPerHour: runway?.perHour,
        runwayHours: runway?.hours,
        relayers: held,
      }
    }),
  )
  const pending = await journal.pending()
  const unresolved = await journal.payments.unresolved()
  const [backlog, fleet, audit] = await Promise.all([store.webhookBacklog(), store.fleet(), store.recent(20)])
  return {
    instanceId: switches.instanceId,
    at: new Date(now).toISOString(),
    draining: switches.draining(),
    paused: switches.paused().map(view),
    drained: switches.drained().map(view),
    audit: audit.map(view),
    chains,
    intents: {
      inFlight: pending.slice(0, 200).map((r) => toIntentView(r, { now, stuckAfterMs: ctx.stuckAfterMs })),
      inFlightCount: pending.length,
      settled: ctx.settled(),
      settledShown: ctx.settledShown,
      stuckAfterSeconds: Math.round(ctx.stuckAfterMs / 1000),
    },
    payments: unresolved.slice(0, 100).map((p) => ({
      id: p.id,
      network: p.network,
      route: p.route,
      chainId: p.chainId,
      intentHash: p.intentHash,
      amount: p.amount,
      state: p.state,
      transaction: p.transaction,
      reason: p.reason?.slice(0, 200),
    })),
    paymentsCount: unresolved.length,
    webhooks: backlog.map((b) => {
      const { endpoint, endpointPath } = describeEndpoint(b.endpoint)
      return {
        endpoint,
        endpointPath,
        pending: b.pending,
        givenUp: b.givenUp,
        oldestAt: b.oldestAt?.toISOString(),
        lastError: b.lastError ? redactUrl(b.lastError).slice(0, 200) : undefined,
      }
    }),
    throttled: activity.throttled(now).slice(0, 50),
    budgetRefusals: activity.budgetRefusals(now).slice(0, 50),
    budgetRefusalsLastHour: activity.budgetRefusals(now).length,
    fleet:
      fleet.length > 0
        ? fleet.map((f) => ({
            instanceId: f.instanceId,
            live: f.live,
            heartbeatExpiresAt: f.heartbeatExpiresAt.toISOString(),
            keys: f.keys,
            draining: switches.drained().some((d) => d.target === f.instanceId),
          }))
        : [
            {
              instanceId: switches.instanceId,
              live: true,
              heartbeatExpiresAt: undefined,
              keys: chains.flatMap((c) =>
                c.relayers.filter((r) => r.held).map((r) => ({ chainId: c.chainId, relayer: r.address })),
              ),
              draining: switches.draining(),
            },
          ],
  }
}

export type OpsState = Awaited<ReturnType<typeof gatherOpsState>>

function view(entry: OpsAuditEntry | undefined) {
  return (
    entry && {
      id: entry.id,
      at: entry.at.toISOString(),
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      detail: entry.detail,
    }
  )
}

/** The balance's fall over the last quarter hour (funding in between restarts the count). */
function runwayOf(
  samples: Map<string, Array<{ t: number; balance: bigint }>>,
  chainId: string,
  balance: bigint,
  now: number,
) {
  let list = samples.get(chainId)
  if (!list) samples.set(chainId, (list = []))
  const last = list.at(-1)
  if (last && balance > last.balance) list.length = 0
  if (!last || now - last.t >= 1000 || balance !== last.balance) list.push({ t: now, balance })
  while (list.length > 2 && now - list[0]!.t > sampleWindowMs) list.shift()
  if (list.length > 120) list.splice(0, list.length - 120)
  const first = list[0]!
  const spent = first.balance - balance
  const hours = (now - first.t) / 3_600_000
  if (spent <= 0n || hours <= 0) return { perHour: '0', hours: undefined }
  const perHour = Number(spent) / hours
  return { perHour: BigInt(Math.round(perHour)).toString(), hours: Math.round((Number(balance) / perHour) * 10) / 10 }
}

/** A count in the smallest unit as a decimal integer string (never `1e+21`). */
const integer = (n: number) => BigInt(Math.trunc(n)).toString()
