// The EVM runtime's own settings beyond its keys (GatewayConfig.runtimeOptions.evm): where chains
// without RPC_URLS find their endpoints (CHAINLIST_*), how reads are folded and kept (MULTICALL,
// VALIDATE_CACHE), how simulations gather under load (EVM_SIMULATION_GATHER_MS) and the
// re-pricing fee ceiling (MAX_FEE_PER_GAS_GWEI). Read from the environment by readEvmOptions, at
// start-up only; its fallbacks are the defaults.
import { homedir } from 'node:os'
import { join } from 'node:path'
import { checkRpcUrl } from '../../config/checkRpcUrl.ts'
import type { Env } from '../../config/gatewayConfig.ts'
import { readBoolean } from '../../config/readBoolean.ts'
import { readInteger } from '../../config/readInteger.ts'

export type EvmOptions = {
  /** Where EVM chains without RPC_URLS find their public endpoints. */
  chainList: { url: string; timeoutMs: number; ttlMs: number; cacheFile: string }
  /** Fold concurrent validator reads into one Multicall3 call where a chain has it (MULTICALL, default true). */
  multicall: boolean
  /** Keep validator answers for the block they were read on (VALIDATE_CACHE, default false). */
  validateCache: boolean
  /** Under load, an EVM chain's execute simulations at the pending state gather (while the gateway's own transactions crowd the node's pool, until a block takes them; else until executes stop arriving), none longer than this many ms (EVM_SIMULATION_GATHER_MS); 0: at once. */
  simulationGatherMs: number
  /** The most the relayer pays per gas, in wei (a safe integer: at most 10^14), when it re-prices a stuck execution (MAX_FEE_PER_GAS_GWEI); undefined: never re-priced. */
  maxFeePerGas: number | undefined
}

export const defaultChainListUrl = 'https://chainlist.org/rpcs.json'

export function readEvmOptions(env: Env, problems: string[]): EvmOptions {
  const url = env.CHAINLIST_URL?.trim() || defaultChainListUrl
  const urlProblem = checkRpcUrl(url)
  if (urlProblem) problems.push(`CHAINLIST_URL: ${urlProblem}`)
  const timeoutMs = readInteger(env, 'CHAINLIST_TIMEOUT_MS', { min: 100, max: 60_000, fallback: 5_000 }, problems)
  const ttlMs = readInteger(env, 'CHAINLIST_TTL_MS', { min: 0, max: 7 * 24 * 3_600_000, fallback: 3_600_000 }, problems)
  const cacheFile = env.CHAINLIST_CACHE_FILE?.trim() || join(homedir(), '.cache', 'intent-gateway', 'chainlist.json')
  const simulationGatherMs = readInteger(
    env,
    'EVM_SIMULATION_GATHER_MS',
    { min: 0, max: 10_000, fallback: 200 },
    problems,
  )
  const maxFeePerGas = readGwei(env, 'MAX_FEE_PER_GAS_GWEI', { max: 100_000, fallback: '100' }, problems)
  const multicall = readBoolean(env, 'MULTICALL', problems, true)
  const validateCache = readBoolean(env, 'VALIDATE_CACHE', problems, false)
  // A value left undefined was reported: the caller throws before these options are used.
  return {
    chainList: { url, timeoutMs: timeoutMs!, ttlMs: ttlMs!, cacheFile },
    multicall,
    validateCache,
    simulationGatherMs: simulationGatherMs!,
    maxFeePerGas,
  }
}

/** An amount of gwei with up to 9 decimals, as wei; 0 turns the feature off (undefined). */
function readGwei(
  env: Env,
  name: string,
  bounds: { max: number; fallback: string },
  problems: string[],
): number | undefined {
  const raw = env[name]?.trim() || bounds.fallback
  const match = /^(\d{1,9})(?:\.(\d{1,9}))?$/.exec(raw)
  if (!match || Number(raw) > bounds.max) {
    problems.push(
      `${name}: "${raw.slice(0, 20)}" is not an amount of gwei between 0 and ${bounds.max} (up to 9 decimals; 0 turns re-pricing off)`,
    )
    return undefined
  }
  const wei = BigInt(match[1]!) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'))
  return wei === 0n ? undefined : Number(wei)
}
