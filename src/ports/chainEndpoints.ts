// What a runtime lends payments of one of its chains: its own endpoints (the chains' pool,
// failover, standing, metrics), so that settlement and recovery reach the node as the runtime
// does instead of through a second client stack. Each payment family builds its library's client
// over the lent request (EVM: a viem transport; Solana: an @solana/kit RPC).

/** One JSON-RPC call as EIP-1193 shapes it: the call's result, or the node's error thrown. */
export type EndpointRequest = (
  call: { method: string; params?: unknown },
  options?: { signal?: AbortSignal | undefined },
) => Promise<unknown>

/** A chain's endpoints as its runtime lends them. */
export type LentEndpoints = {
  /** Failed over between the chain's endpoints, each attempt counted in their standing and metrics. */
  request: EndpointRequest
}

/** The lent endpoints by CAIP-2 chain id: undefined where no runtime chain here serves it. */
export type ChainEndpoints = (chainId: string) => LentEndpoints | undefined

/**
 * An adapter whose runtime always lends its chain's endpoints: what `ChainAdapter.lendEndpoints`
 * is where a runtime's own code builds it (EVM, Solana).
 */
export type LendsEndpoints = { lendEndpoints(): LentEndpoints }
