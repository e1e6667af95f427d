// What the console shows of refusals this instance made: throttled clients (429 from the rate
// limit, standing or a spent gas budget) and budget refusals, over the last hour. In memory and
// bounded (one entry per client, at most `maxClients`, oldest forgotten first): the page's numbers,
// not an audit; the metrics keep the counts.
import type { ExecutionGuard, GuardRefusal } from '../intents/createExecutionGuard.ts'

export type ThrottledClient = {
  client: string
  reason: string
  count: number
  lastAt: number
  retryAfterSeconds: number | undefined
}
export type BudgetRefusal = { at: number; client: string; reason: string; detail: string }

export type OpsActivity = {
  /** A 429 answered to a client (by its key id, or its address when it had none). */
  recordThrottled(entry: { client: string; reason: string; retryAfterSeconds?: number | undefined }): void
  /** The guard, wrapped: its refusals are recorded here on their way to the route. */
  observe(guard: ExecutionGuard): ExecutionGuard
  throttled(now?: number): ThrottledClient[]
  budgetRefusals(now?: number): BudgetRefusal[]
}

const hourMs = 3_600_000

export function createOpsActivity({
  maxClients = 200,
  maxRefusals = 500,
}: {
  maxClients?: number
  maxRefusals?: number
} = {}): OpsActivity {
  const clients = new Map<string, ThrottledClient>()
  const refusals: BudgetRefusal[] = []
  const recordThrottled: OpsActivity['recordThrottled'] = ({ client, reason, retryAfterSeconds }) => {
    const now = Date.now()
    const known = clients.get(client)
    // Re-inserted: the map's order is the order of last refusal, the oldest first to go.
    clients.delete(client)
    clients.set(client, { client, reason, count: (known?.count ?? 0) + 1, lastAt: now, retryAfterSeconds })
    while (clients.size > maxClients) clients.delete(clients.keys().next().value!)
  }
  const recordRefusal = (client: string, refusal: GuardRefusal) => {
    if (/budget/i.test(refusal.reason) || /budget/.test(refusal.problemType)) {
      refusals.push({ at: Date.now(), client, reason: refusal.reason, detail: refusal.detail })
      if (refusals.length > maxRefusals) refusals.splice(0, refusals.length - maxRefusals)
    }
  }
  return {
    recordThrottled,
    observe(guard) {
      return {
        ...guard,
        async check(subject) {
          const refusal = await guard.check(subject)
          if (refusal) recordRefusal(subject.client, refusal)
          return refusal
        },
      }
    },
    throttled(now = Date.now()) {
      return [...clients.values()].filter((c) => now - c.lastAt < hourMs).reverse()
    },
    budgetRefusals(now = Date.now()) {
      return refusals.filter((r) => now - r.at < hourMs).reverse()
    },
  }
}
