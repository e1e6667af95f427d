// Standing and budgets: what keeps one payment, one API key or one crafted contract from making
// the relayer pay for transactions that do nothing. On-chain reverts of intents that passed
// simulation are counted per sender, per client (API key, payer or address) and per target (as a
// share of its attempts, over a minimum count, so that a few crafted reverts cannot block a popular
// contract: a revert counts toward its target only when none of its sender, payer and client has a
// counted revert on that target in the window, so one party weighs one revert however many it
// crafts). What the relayer spends is counted per client (the facilitator's spend on a payer's
// settlements too) and, for the chain's circuit breaker, only where no payment covered it: a paid
// execute's gas is bounded by what its price covers (maxGas), so paid traffic, whoever sends it,
// cannot stop everyone else. Past a limit, execute is refused before anything is simulated, signed
// or paid. Counts live in window counters, shared by the instances through Redis where it is
// configured. Two records landing at once may both count a party's first revert on a target: the
// bound is per window, not exact.

import type { ExecutionGuardConfig } from '../config/limitsConfig.ts'
import type { WindowCounters, WindowTotal } from '../limits/createWindowCounters.ts'
import type { GuardRefusalReason } from '../metrics/createMetrics.ts'
import type { ExecutionReceipt } from '../ports/chainAdapter.ts'
import { Status } from '../status/statusCodes.ts'

/** Who and what an execute concerns. `client`: `key:<id>`, `payer:<address>` or `ip:<address>`. */

export type GuardSubject = {
  chainId: string
  sender: string
  target: string
  /** A batch's call targets (account mode): its attempt and its revert count toward each distinct one, and any throttled one refuses it. */
  targets?: readonly string[] | undefined
  client: string
  /** Who paid for the execute (x402), when a payment did: a party of the target rule besides the sender and the client. */
  payer?: string | undefined
}

/** What paid for a recorded execution. */
export type RecordOptions = {
  /** A payment (this request's or a credit) paid for it: its spend never counts toward RELAYER_SPEND_BUDGET. */
  paid?: boolean | undefined
}

/** The facilitator's spend on one settlement of a payer's payment (x402 item 2 of issue 40). */
export type PayerSpend = {
  /** The payment's network (CAIP-2), whose budgets it counts against. */
  chainId: string
  /** `payer:<address>` (lower-case for 0x addresses, as-is for base58). */
  client: string
  /** What the facilitator paid, in the network's smallest unit. */
  fee: bigint
  /** The settlement failed on chain: the payer's revert (client standing). */
  failed: boolean
}

export type GuardRefusal = {
  reason: GuardRefusalReason
  status: number
  problemType: string
  detail: string
  retryAfterSeconds: number
}

export type ExecutionGuard = {
  /** A refusal of the gateway's limits, or undefined: go ahead. */
  check(subject: GuardSubject): Promise<GuardRefusal | undefined>
  /** Counts what a sent execution came to, once its receipt arrived. */
  record(subject: GuardSubject, receipt: ExecutionReceipt, options?: RecordOptions): Promise<void>
  /**
   * Counts the facilitator's spend on a settlement against its payer's GAS_BUDGET_PER_CLIENT on
   * the payment's network, a failed one as the payer's revert; never toward RELAYER_SPEND_BUDGET
   * (the payer's own payment attempts must not stop everyone else).
   */
  recordPayerSpend(spend: PayerSpend): Promise<void>
  /**
   * The relayer's spend on a chain in the current window against RELAYER_SPEND_BUDGET (in the
   * chain's smallest unit, as counted: spend no payment covered), for the operator's console;
   * undefined without a budget.
   */
  relayerSpend(chainId: string): Promise<{ spent: number; budget: number; windowSeconds: number } | undefined>
}

export const revertsThrottledType = 'urn:intent-gateway:problem:reverts-throttled'
export const gasBudgetSpentType = 'urn:intent-gateway:problem:gas-budget-spent'
export const relayerBudgetSpentType = 'urn:intent-gateway:problem:relayer-budget-spent'

// Hex addresses (EVM, Sui) are case-insensitive; base58 keys (Solana) are not.
const normal = (address: string) => (address.startsWith('0x') ? address.toLowerCase() : address)

export function createExecutionGuard({
  config,
  counters,
}: {
  config: ExecutionGuardConfig
  counters: WindowCounters
}): ExecutionGuard {
  const allowed = new Set(config.targetAllowlist.map(normal))
  const window = `${Math.round(config.windowMs / 1000)} s`
  const targetKeys = (chainId: string, target: string) => ({
    targetReverts: `reverts:target:${chainId}:${normal(target)}`,
    targetAttempts: `attempts:target:${chainId}:${normal(target)}`,
  })
  /** The distinct targets an execute calls: a batch's every call target (one revert of it weighs once on each), else its one target. */
  const targetsOf = (subject: GuardSubject) => [
    ...new Set((subject.targets?.length ? subject.targets : [subject.target]).map(normal)),
  ]
  const keys = ({ chainId, sender, client }: GuardSubject) => ({
    senderReverts: `reverts:sender:${chainId}:${normal(sender)}`,
    clientReverts: `reverts:client:${chainId}:${client}`,
    clientSpend: `spend:client:${chainId}:${client}`,
    chainSpend: `spend:chain:${chainId}`,
  })
  /** Whether a party already has a counted revert on this target in the window (the target rule's one-revert-per-party). */
  const partyKey = ({ chainId, target }: GuardSubject, party: string) =>
    `reverts:target-party:${chainId}:${normal(target)}:${party}`
  const partiesOf = (subject: GuardSubject) => [
    `sender:${normal(subject.sender)}`,
    `client:${subject.client}`,
    ...(subject.payer === undefined ? [] : [`payer:${normal(subject.payer)}`]),
  ]
  /** Counts a revert toward its target's share only when none of its parties has one counted there yet; then marks them. */
  const countTargetRevert = async (subject: GuardSubject, targetReverts: string) => {
    const keys = [...new Set(partiesOf(subject))].map((party) => partyKey(subject, party))
    const totals = await Promise.all(keys.map((key) => counters.total(key)))
    if (totals.some((t) => t.total > 0)) return
    await Promise.all([counters.add(targetReverts, 1), ...keys.map((key) => counters.add(key, 1))])
  }

  /** Whether a total reached its limit: all of it when the count is shared, this instance's part of it while it counts alone (Redis unreachable). */
  const reached = (t: WindowTotal, limit: number) => t.total >= limit * t.share
  /** What a refusal adds when the count was this instance's own. */
  const alone = (t: WindowTotal) =>
    t.share < 1
      ? ` (Redis unreachable: counted by this instance alone, held to 1/${Math.round(1 / t.share)} of the limit, its part among the live instances)`
      : ''

  return {
    async relayerSpend(chainId) {
      if (!(config.relayerSpendBudget > 0)) return undefined
      const { total, share } = await counters.total(`spend:chain:${chainId}`)
      return {
        spent: total,
        budget: config.relayerSpendBudget * share,
        windowSeconds: Math.round(config.windowMs / 1000),
      }
    },
    async check(subject) {
      const k = keys(subject)
      const throttled = (reason: GuardRefusalReason, detail: string, retryAfterSeconds: number): GuardRefusal => ({
        reason,
        status: Status.RATE_LIMITED,
        problemType: revertsThrottledType,
        detail: `${detail}; retry after ${retryAfterSeconds} s`,
        retryAfterSeconds,
      })
      const judged = config.targetMaxRevertShare > 0 ? targetsOf(subject).filter((target) => !allowed.has(target)) : []
      const [sender, client, clientSpend, chainSpend, targetShares] = await Promise.all([
        config.maxRevertsPerSender > 0 ? counters.total(k.senderReverts) : undefined,
        config.maxRevertsPerClient > 0 ? counters.total(k.clientReverts) : undefined,
        config.gasBudgetPerClient > 0 ? counters.total(k.clientSpend) : undefined,
        config.relayerSpendBudget > 0 ? counters.total(k.chainSpend) : undefined,
        Promise.all(
          judged.map(async (target) => {
            const t = targetKeys(subject.chainId, target)
            const [reverts, attempts] = await Promise.all([
              counters.total(t.targetReverts),
              counters.total(t.targetAttempts),
            ])
            return { reverts, attempts }
          }),
        ),
      ])
      // A batch is refused when any target it calls is throttled.
      const throttledTarget = targetShares.find(
        ({ reverts, attempts }) =>
          attempts.total >= config.targetMinAttempts && reverts.total >= config.targetMaxRevertShare * attempts.total,
      )
      if (chainSpend && reached(chainSpend, config.relayerSpendBudget)) {
        return {
          reason: 'relayer_spend_budget',
          status: Status.UNAVAILABLE,
          problemType: relayerBudgetSpentType,
          detail: `the relayer spent its budget on ${subject.chainId} for now (RELAYER_SPEND_BUDGET per ${window})${alone(chainSpend)}; executes resume as the window moves on`,
          retryAfterSeconds: chainSpend.retryAfterSeconds,
        }
      }
      if (sender && reached(sender, config.maxRevertsPerSender)) {
        return throttled(
          'sender_reverts',
          `${sender.total} intents of this sender reverted on-chain after passing simulation in the last ${window} (STANDING_MAX_REVERTS_PER_SENDER is ${config.maxRevertsPerSender})${alone(sender)}`,
          sender.retryAfterSeconds,
        )
      }
      if (client && reached(client, config.maxRevertsPerClient)) {
        return throttled(
          'client_reverts',
          `${client.total} executes of this client reverted on-chain after passing simulation in the last ${window} (STANDING_MAX_REVERTS_PER_CLIENT is ${config.maxRevertsPerClient})${alone(client)}`,
          client.retryAfterSeconds,
        )
      }
      if (throttledTarget) {
        const { reverts, attempts } = throttledTarget
        return throttled(
          'target_reverts',
          `${reverts.total} of the ${attempts.total} executions that called this target in the last ${window} reverted on-chain after passing simulation (STANDING_TARGET_MAX_REVERT_SHARE is ${config.targetMaxRevertShare})`,
          reverts.retryAfterSeconds,
        )
      }
      if (clientSpend && reached(clientSpend, config.gasBudgetPerClient)) {
        return {
          reason: 'client_gas_budget',
          status: Status.RATE_LIMITED,
          problemType: gasBudgetSpentType,
          detail: `the relayer spent this client's gas budget on ${subject.chainId} (${clientSpend.total} of ${config.gasBudgetPerClient} in the chain's smallest unit per ${window}, GAS_BUDGET_PER_CLIENT)${alone(clientSpend)}; retry after ${clientSpend.retryAfterSeconds} s`,
          retryAfterSeconds: clientSpend.retryAfterSeconds,
        }
      }
      return undefined
    },
    async record(subject, receipt, options = {}) {
      const k = keys(subject)
      const fee = receipt.fee === undefined ? 0 : Number(receipt.fee)
      const counts: Promise<void>[] = []
      // The breaker counts only what no payment covered (a paid execute's gas is capped at what its price covers).
      if (fee > 0 && !options.paid) counts.push(counters.add(k.chainSpend, fee))
      // Out of the gas we gave it: the gateway's fault. The relayer paid, but nobody's standing or budget does.
      if (!receipt.outOfGas) {
        if (fee > 0) counts.push(counters.add(k.clientSpend, fee))
        const reverted = receipt.state === 'reverted' || receipt.notExecuted === true
        // Each distinct target a batch calls gets the attempt and, on a revert, the revert (once each, under the one-revert-per-party rule).
        for (const target of targetsOf(subject)) {
          const t = targetKeys(subject.chainId, target)
          counts.push(counters.add(t.targetAttempts, 1))
          if (reverted) counts.push(countTargetRevert({ ...subject, target }, t.targetReverts))
        }
        // A mined account-mode transaction that did not run the intent (its authorization skipped) counts as a revert.
        if (reverted) counts.push(counters.add(k.senderReverts, 1), counters.add(k.clientReverts, 1))
      }
      await Promise.all(counts)
    },
    async recordPayerSpend({ chainId, client, fee, failed }) {
      const counts: Promise<void>[] = []
      if (fee > 0n) counts.push(counters.add(`spend:client:${chainId}:${client}`, Number(fee)))
      if (failed) counts.push(counters.add(`reverts:client:${chainId}:${client}`, 1))
      await Promise.all(counts)
    },
  }
}
