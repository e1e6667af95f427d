// The composition root's chains: each runtime of runtimes.ts builds the adapters of its configured
// chains (its client loaded only when one is configured), then each chain's contracts are checked
// (preflight). A missing contract stops a production start; elsewhere that chain answers 503.
import type { GatewayConfig } from './config/gatewayConfig.ts'
import type { RuntimeContext } from './config/runtimeModule.ts'
import type { ChainAdapter } from './ports/chainAdapter.ts'
import type { ChainEndpoints, LentEndpoints } from './ports/chainEndpoints.ts'
import { runtimes } from './runtimes.ts'

export type StartedChains = {
  /** In the configured order. */
  adapters: ChainAdapter[]
  /** The endpoints each chain's runtime lends (its pool: failover, standing, metrics), for x402 settlement and recovery. */
  endpoints: ChainEndpoints
  /** Production: the chains whose contracts are missing (the start-up fails naming them). */
  problems: string[]
}

/** On a runtime's failure, the adapters already built are closed and the error thrown; the stores are the caller's. */
export async function startChains(
  config: GatewayConfig,
  context: Omit<RuntimeContext, 'settings'>,
): Promise<StartedChains> {
  const byId = new Map<string, ChainAdapter>()
  const lent = new Map<string, LentEndpoints>()
  try {
    for (const module of runtimes) {
      const chains = config.chains.filter((c) => c.chainType === module.chainType)
      if (chains.length === 0) continue
      const built = await module.createChains(chains, { ...context, settings: config })
      for (const adapter of built.adapters) {
        byId.set(adapter.chainId, adapter)
        const endpoints = adapter.lendEndpoints?.()
        if (endpoints) lent.set(adapter.chainId, endpoints)
      }
    }
  } catch (err) {
    await Promise.all([...byId.values()].map((a) => a.close()))
    throw err
  }
  const adapters = config.chains.map((c) => byId.get(c.chainId)!)
  const problems: string[] = []
  await Promise.all(
    adapters.map(async (adapter) => {
      const result = await adapter.preflight()
      if (result.ok) return
      if ('missing' in result) {
        const reason = `no contract code on ${adapter.chainId} for: ${result.missing.join(', ')}`
        if (config.production) problems.push(`${adapter.chainId}: ${reason} (check the addresses and the chain)`)
        else adapter.markUnavailable(reason)
      } else {
        // The node may come up later: serve, and let requests answer 503 until it does.
        context.logger.warn(
          { chainId: adapter.chainId, reason: result.unreachable },
          'preflight could not reach the chain; its contracts are unchecked',
        )
      }
    }),
  )
  return { adapters, endpoints: (chainId) => lent.get(chainId), problems }
}
