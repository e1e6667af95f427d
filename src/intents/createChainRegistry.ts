// Chooses the chain a request is for (docs/api-contract.md §2): X-Chain-Id in decimal or CAIP-2, else
// DEFAULT_CHAIN_ID, else the only configured chain.

import { InputError } from '../errors/inputError.ts'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import { type ChainType, parseChainId } from '../ports/chainId.ts'
import type { ChainRuntime } from '../ports/chainRuntime.ts'

export type ChainSelection =
  | { configured: true; chainId: string; chainType: ChainType; adapter: ChainAdapter; runtime: ChainRuntime }
  /** A well-formed id of a chain this gateway does not serve (answered 421, 0xA2). */
  | { configured: false; chainId: string; chainType: ChainType | undefined; runtime: ChainRuntime | undefined }

export type ChainRegistry = {
  adapters: ChainAdapter[]
  defaultChainId: string | undefined
  /** Throws InputError for a malformed or missing id. */
  select(header: string | undefined): ChainSelection
  /** The chain id and runtime to report for a header, without failing: for error responses. */
  describe(header: string | undefined): { chainId: string; chainType: string }
}

export type CreateChainRegistryParameters = {
  adapters: ChainAdapter[]
  defaultChainId: string | undefined
  /**
   * Each runtime's parsing and hashing (src/runtimes.ts), for chains not served (421, with the
   * intent's hash) and adapters without a runtime of their own; default: none.
   */
  runtimes?: readonly ChainRuntime[] | undefined
}

export function createChainRegistry({
  adapters,
  defaultChainId,
  runtimes: known = [],
}: CreateChainRegistryParameters): ChainRegistry {
  const runtimes: Partial<Record<ChainType, ChainRuntime>> = Object.fromEntries(known.map((r) => [r.chainType, r]))
  const byId = new Map(adapters.map((a) => [a.chainId, a]))
  const fallbackId = defaultChainId ?? (adapters.length === 1 ? adapters[0]!.chainId : undefined)
  const configuredList = () => adapters.map((a) => a.chainId).join(', ') || 'none'

  return {
    adapters,
    defaultChainId: fallbackId,
    select(header) {
      const requested = header?.trim()
      if (!requested) {
        if (!fallbackId) {
          throw new InputError('X-Chain-Id is required', {
            errors: [
              {
                field: 'X-Chain-Id',
                message: `is required when several chains are configured and DEFAULT_CHAIN_ID is not set (configured: ${configuredList()})`,
              },
            ],
          })
        }
        const adapter = byId.get(fallbackId)!
        return {
          configured: true,
          chainId: adapter.chainId,
          chainType: adapter.chainType,
          adapter,
          runtime: adapter.runtime,
        }
      }
      const parsed = parseChainId(requested)
      if (typeof parsed === 'string')
        throw new InputError('X-Chain-Id is not a chain id', { errors: [{ field: 'X-Chain-Id', message: parsed }] })
      const adapter = byId.get(parsed.caip2)
      const runtime = parsed.chainType ? runtimes[parsed.chainType] : undefined
      if (!adapter) return { configured: false, chainId: parsed.caip2, chainType: parsed.chainType, runtime }
      return {
        configured: true,
        chainId: adapter.chainId,
        chainType: adapter.chainType,
        adapter,
        runtime: adapter.runtime,
      }
    },
    describe(header) {
      const requested = header?.trim()
      if (!requested) {
        const adapter = fallbackId ? byId.get(fallbackId) : undefined
        return { chainId: adapter?.chainId ?? '', chainType: adapter?.chainType ?? '' }
      }
      const parsed = parseChainId(requested)
      // Echo what was asked for, but only in a header-safe form.
      if (typeof parsed === 'string')
        return { chainId: requested.replace(/[^\x21-\x7e]/g, '').slice(0, 64), chainType: '' }
      return { chainId: parsed.caip2, chainType: parsed.chainType ?? '' }
    },
  }
}
