// Gives every configured chain its endpoints (RPC_URLS first, else the chain-list registry, else
// viem's definitions), its name and native currency, and says in the log where they came from.
// In production, discovered endpoints are untrusted: each is marked publicOnly (https at a public
// address only, see createEndpointPool), and a chain served only through them is readOnly.
import type { Logger } from 'pino'
import type { ChainConfig } from '../../../config/gatewayConfig.ts'
import { redactUrl } from '../../../config/redactUrl.ts'
import type { ResolvedEndpoint } from '../../../ports/endpoint.ts'
import type { ChainList } from './createChainList.ts'
import { findViemChain, findViemChainName } from './findViemChain.ts'
import { selectEndpoints } from './selectEndpoints.ts'

export type ResolvedChain = ChainConfig & {
  endpoints: ResolvedEndpoint[]
  name: string
  nativeCurrency: { name: string; symbol: string; decimals: number }
  /**
   * True in production when the chain has no RPC_URLS: its endpoints were discovered, and a
   * discovered endpoint may lie (fake receipts, fake eth_call answers). Such a chain serves
   * read-only validation; nothing may be sent (or charged) on it. createGateway gives it no relayer.
   */
  readOnly: boolean
}

const defaultCurrency = { name: 'Ether', symbol: 'ETH', decimals: 18 }

export async function resolveChains({
  chains,
  chainList,
  production = false,
  logger,
}: {
  chains: ChainConfig[]
  chainList: ChainList | undefined
  production?: boolean
  logger: Logger
}): Promise<ResolvedChain[]> {
  const log = logger.child({ module: 'discovery' })
  return Promise.all(
    chains.map(async (chain): Promise<ResolvedChain> => {
      const id = Number(chain.reference)
      let endpoints: ResolvedChain['endpoints'] = chain.rpcUrls.map((url) => ({ url, source: 'config' as const }))
      let name: string | undefined
      let nativeCurrency: ResolvedChain['nativeCurrency'] | undefined

      if (endpoints.length === 0 && chainList) {
        const found = await chainList.find(id)
        if (found) {
          endpoints = selectEndpoints(found.entry.rpcs).map((url) => ({ url, source: found.source }))
          name = found.entry.name
          nativeCurrency = found.entry.nativeCurrency
        }
      }
      // viem's definitions: endpoints when nothing else has any, and names where we lack them.
      if (endpoints.length === 0) {
        const viemChain = await findViemChain(id)
        if (viemChain) endpoints = viemChain.rpcUrls.default.http.map((url) => ({ url, source: 'viem' as const }))
      }
      if (!name || !nativeCurrency) {
        const viemName = findViemChainName(id)
        name ??= viemName?.name
        nativeCurrency ??= viemName?.nativeCurrency
      }

      if (endpoints.length === 0)
        log.error({ chainId: chain.chainId }, 'no RPC endpoint found for this chain: set RPC_URLS')
      else
        log.info(
          { chainId: chain.chainId, source: endpoints[0]!.source, endpoints: endpoints.map((e) => redactUrl(e.url)) },
          `endpoints for ${chain.chainId} from ${endpoints[0]!.source}`,
        )
      const readOnly = production && chain.rpcUrls.length === 0
      if (readOnly) endpoints = endpoints.map((e) => ({ ...e, publicOnly: true }))
      return {
        ...chain,
        endpoints,
        name: name ?? chain.chainId,
        nativeCurrency: nativeCurrency ?? defaultCurrency,
        readOnly,
      }
    }),
  )
}
