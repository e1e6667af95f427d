// An RPC endpoint as the gateway reports it (GET /chains, /health): where it came from, how it fares.
// Runtimes that reach their chain over JSON-RPC keep a pool of them (chains/createEndpointPool.ts).

export type EndpointSource = 'config' | 'chainlist' | 'chainlist-cache' | 'viem'

export type ResolvedEndpoint = {
  url: string
  source: EndpointSource
  /** Refuse it unless it is https at a public address (discovered endpoints in production). */
  publicOnly?: boolean | undefined
}

/** `refused`: a discovered endpoint production will not call (not https, or an internal address). */
export type EndpointStatus = 'unverified' | 'healthy' | 'failing' | 'wrong-chain' | 'refused'

export type EndpointView = {
  url: string
  source: EndpointSource
  status: EndpointStatus
  latencyMs: number | undefined
  requests: number
  failures: number
  lastError: string | undefined
}
