// The endpoints a chain's runtime lends payments (ports/chainEndpoints.ts), built for tests that
// start payments without the gateway's chains: each URL behind the runtime's own code (EVM: the
// endpoint pool; Solana: the adapter's endpoints and their failover).
import { address } from '@solana/kit'
import type { Logger } from 'pino'
import { createEndpointPool } from '../../src/chains/createEndpointPool.ts'
import { lentRequest } from '../../src/chains/solana/actions/lentRequest.ts'
import { createSolanaContext } from '../../src/chains/solana/createSolanaContext.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { ChainEndpoints, LentEndpoints } from '../../src/ports/chainEndpoints.ts'

/** The lent endpoints of one network (a CAIP-2 id) on one RPC URL. */
export function lendEndpoints(
  network: string,
  url: string,
  { timeoutMs = 5_000, logger = createLogger({ level: 'silent' }) }: { timeoutMs?: number; logger?: Logger } = {},
): LentEndpoints {
  const [namespace, reference = ''] = network.split(':')
  if (namespace === 'eip155') {
    const pool = createEndpointPool({
      chainId: network,
      reference: Number(reference),
      endpoints: [{ url, source: 'config' }],
      timeoutMs,
      logger,
    })
    return { request: (call) => pool.request(call) }
  }
  // Any valid addresses: payments' calls read no program of the gateway's.
  const ctx = createSolanaContext({
    chain: {
      chainId: network,
      reference,
      rpcUrls: [url],
      programId: address('11111111111111111111111111111111'),
      config: address('11111111111111111111111111111111'),
    },
    rpcTimeoutMs: timeoutMs,
    logger,
  })
  return { request: (call, options) => lentRequest(ctx, call, options) }
}

/** The lent endpoints of each network named, by network (createFacilitatorClient's `endpoints`). */
export function lendEndpointsOf(urls: Record<string, string>, options?: { timeoutMs?: number }) {
  return Object.fromEntries(
    Object.entries(urls).map(([network, url]) => [network, lendEndpoints(network, url, options)]),
  )
}

/** A ChainEndpoints over these chains' URLs, by chain id (startPayments's `endpoints`). */
export function chainEndpointsOf(urls: ReadonlyMap<string, string>, options?: { timeoutMs?: number }): ChainEndpoints {
  const lent = new Map([...urls].map(([chainId, url]) => [chainId, lendEndpoints(chainId, url, options)]))
  return (chainId) => lent.get(chainId)
}
