// The Solana runtime's own settings beyond its keys (GatewayConfig.runtimeOptions.solana): the
// priority-fee ceiling and the simulation fee payer. Read from the environment by
// readSolanaOptions, at start-up only.
import type { Env } from '../../config/gatewayConfig.ts'
import { solanaRuntime } from './solanaRuntime.ts'

export type SolanaOptions = {
  /**
   * The most the relayer bids per compute unit, in micro-lamports (SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS):
   * the market's price is taken up to this, and a re-signed attempt is raised up to this. 0: no
   * priority fee at all.
   */
  maxPriorityFeeMicroLamports: number
  /**
   * SOLANA_SIMULATION_FEE_PAYER: a funded account named as fee payer of validate simulations
   * (nothing is signed or paid; not a key). Absent: the relayer's, when there is one.
   */
  simulationFeePayer?: string | undefined
}

/** 1 lamport per compute unit: 0.0002 SOL for a 200,000-unit execute at the most. */
export const defaultSolanaOptions: SolanaOptions = { maxPriorityFeeMicroLamports: 1_000_000 }

/** At most 10^12 micro-lamports (a million lamports) per unit: above that a typo, not a price. */
const maxCeiling = 1_000_000_000_000

export function readSolanaOptions(env: Env, problems: string[]): SolanaOptions {
  const simulationFeePayer = env.SOLANA_SIMULATION_FEE_PAYER?.trim() || undefined
  const payerProblem = simulationFeePayer && solanaRuntime.checkAddress(simulationFeePayer)
  if (payerProblem) problems.push(`SOLANA_SIMULATION_FEE_PAYER: ${payerProblem}`)
  const payer = simulationFeePayer ? { simulationFeePayer } : {}
  const raw = env.SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS?.trim()
  if (!raw) return { ...defaultSolanaOptions, ...payer }
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(value) || value > maxCeiling) {
    problems.push(
      `SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: must be a whole number of micro-lamports per compute unit from 0 to ${maxCeiling} (it is "${raw.slice(0, 30)}")`,
    )
    return { ...defaultSolanaOptions, ...payer }
  }
  return { maxPriorityFeeMicroLamports: value, ...payer }
}
