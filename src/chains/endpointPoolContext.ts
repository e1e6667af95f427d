// What a chain's endpoint pool (createEndpointPool.ts) works with: each endpoint's client and
// standing, in the configured order, and where it reports. An endpoint refused at start-up (a
// discovered one that production may not call) stays in the list, answering every call with 503.
import type { Logger } from 'pino'
import { redactUrl } from '../config/redactUrl.ts'
import { ChainUnavailableError } from '../errors/chainUnavailableError.ts'
import type { RpcRecorder } from '../metrics/createMetrics.ts'
import { publicOnlyLookup } from '../net/publicOnlyLookup.ts'
import type { EndpointView, ResolvedEndpoint } from '../ports/endpoint.ts'
import { createJsonRpcClient, type RpcCall } from './createJsonRpcClient.ts'
import { refuseInward, splitCredentials } from './endpointUrls.ts'

export type CreateEndpointPoolParameters = {
  chainId: string
  reference: number
  endpoints: ResolvedEndpoint[]
  timeoutMs: number
  logger: Logger
  /** Told the duration (and failure) of each request, failover included. */
  rpcRecorder?: RpcRecorder | undefined
}

export type Endpoint = {
  view: EndpointView
  send: (args: RpcCall) => Promise<unknown>
  sequence: (calls: readonly RpcCall[]) => Promise<unknown>[]
  close: () => Promise<void>
  verified: boolean
  consecutiveFailures: number
  retryAt: number
}

export type EndpointPoolContext = {
  chainId: string
  /** The chain id every endpoint must report (eth_chainId). */
  reference: number
  log: Logger
  rpcRecorder: RpcRecorder | undefined
  /** Every endpoint, in the configured order: metrics name one by its position (never its URL). */
  all: Endpoint[]
  /** Those not refused at start-up. */
  usable: Endpoint[]
}

export function createEndpointPoolContext({
  chainId,
  reference,
  endpoints,
  timeoutMs,
  logger,
  rpcRecorder,
}: CreateEndpointPoolParameters): EndpointPoolContext {
  const log = logger.child({ module: 'endpoints', chainId })
  const all: Endpoint[] = endpoints.map(({ url, source, publicOnly }, index) => {
    const view: EndpointView = {
      url: redactUrl(url),
      source,
      status: 'unverified',
      latencyMs: undefined,
      requests: 0,
      failures: 0,
      lastError: undefined,
    }
    const refusal = publicOnly ? refuseInward(url) : undefined
    if (refusal) {
      log.warn({ endpoint: view.url, source, reason: refusal }, 'discovered RPC endpoint refused')
      rpcRecorder?.observeEndpoint?.({ chain: chainId, endpoint: index, up: false })
      const refused = async () => {
        throw new ChainUnavailableError(chainId, { details: refusal })
      }
      return {
        view: { ...view, status: 'refused', lastError: refusal },
        send: refused,
        sequence: (calls: readonly RpcCall[]) => calls.map(refused),
        close: async () => {},
        verified: false,
        consecutiveFailures: 0,
        retryAt: Infinity,
      }
    }
    const { target, headers } = splitCredentials(url)
    const client = createJsonRpcClient({
      url: target,
      headers,
      timeoutMs,
      lookup: publicOnly ? publicOnlyLookup : undefined,
    })
    return {
      view,
      send: client.request,
      sequence: client.sequence,
      close: client.close,
      verified: false,
      consecutiveFailures: 0,
      retryAt: 0,
    }
  })
  return { chainId, reference, log, rpcRecorder, all, usable: all.filter((e) => e.view.status !== 'refused') }
}
