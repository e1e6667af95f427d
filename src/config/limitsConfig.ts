// The settings of standing and budgets (intents/createExecutionGuard.ts): how many on-chain
// reverts a sender, a client or a target may cause in a window, and what the relayer may spend per
// client and per chain. Reads its own variables and reports its own problems, for loadConfig to
// compose with the others.
import { readInteger } from './readInteger.ts'

/** Standing after on-chain reverts and the spend budgets (docs/api-contract.md §14): what intents/createExecutionGuard.ts enforces. */
export type ExecutionGuardConfig = {
  /** The window every count covers (STANDING_WINDOW_MS). */
  windowMs: number
  /** Reverts of one sender's intents in the window before its executes are refused (0: no limit). */
  maxRevertsPerSender: number
  /** Reverts of one client's (API key's, payer's or address's) executes in the window (0: no limit). */
  maxRevertsPerClient: number
  /** A target is judged only once it had this many attempts in the window. */
  targetMinAttempts: number
  /** The share of a target's attempts that may revert (0–1; 0: no limit). */
  targetMaxRevertShare: number
  /** Targets never refused for their reverts (lower-case where hex). */
  targetAllowlist: readonly string[]
  /** What the relayer may spend for one client per chain in the window, in the chain's smallest unit (0: no budget). */
  gasBudgetPerClient: number
  /**
   * What the relayer may spend on one chain in the window, in its smallest unit (0: no budget): the
   * circuit breaker. Only spend no payment covered counts toward it (unpaid executes: API-key
   * clients, free chains); paid executes, bounded by what their price covers, and the
   * facilitator's settlements never do.
   */
  relayerSpendBudget: number
}

export type LimitsConfigResult = { value: ExecutionGuardConfig; problems: string[] }

export function limitsConfig(env: Record<string, string | undefined>): LimitsConfigResult {
  const problems: string[] = []
  const integer = (name: string, min: number, max: number, fallback: number) =>
    readInteger(env, name, { min, max, fallback }, problems) ?? fallback
  const share = (() => {
    const raw = env.STANDING_TARGET_MAX_REVERT_SHARE?.trim()
    if (!raw) return 0.5
    const value = Number(raw)
    if (!/^(0|1|0?\.[0-9]+|1\.0*)$/.test(raw) || !(value >= 0 && value <= 1)) {
      problems.push(
        `STANDING_TARGET_MAX_REVERT_SHARE: "${raw.slice(0, 24)}" is not a share from 0 to 1 (0 turns the target rule off)`,
      )
      return 0.5
    }
    return value
  })()
  const allowlist = (env.STANDING_TARGET_ALLOWLIST ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
  for (const target of allowlist) {
    if (!/^0x[0-9a-fA-F]{40}$|^0x[0-9a-fA-F]{64}$|^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(target)) {
      problems.push(`STANDING_TARGET_ALLOWLIST: "${target.slice(0, 70)}" is not an EVM, Sui or Solana address`)
    }
  }
  // Amounts in the chain's smallest unit (wei), as decimal integers; 0 turns a budget off.
  const amount = (name: string) => {
    const raw = env[name]?.trim()
    if (!raw) return 0
    if (!/^[0-9]{1,30}$/.test(raw)) {
      problems.push(
        `${name}: "${raw.slice(0, 24)}" is not a decimal integer amount in the chain's smallest unit (wei on EVM; 0 turns it off)`,
      )
      return 0
    }
    return Number(raw)
  }
  return {
    value: {
      windowMs: integer('STANDING_WINDOW_MS', 1_000, 7 * 24 * 3_600_000, 3_600_000),
      maxRevertsPerSender: integer('STANDING_MAX_REVERTS_PER_SENDER', 0, 1_000_000, 3),
      maxRevertsPerClient: integer('STANDING_MAX_REVERTS_PER_CLIENT', 0, 1_000_000, 10),
      targetMinAttempts: integer('STANDING_TARGET_MIN_ATTEMPTS', 1, 1_000_000, 20),
      targetMaxRevertShare: share,
      targetAllowlist: allowlist,
      gasBudgetPerClient: amount('GAS_BUDGET_PER_CLIENT'),
      relayerSpendBudget: amount('RELAYER_SPEND_BUDGET'),
    },
    problems,
  }
}
