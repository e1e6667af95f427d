// Several RPC endpoints behind one chain. A request fails over between them; an endpoint that
// fails is set aside (with a growing cooldown) and probed again once the cooldown ends; healthy
// endpoints are ranked by measured latency. No endpoint is used before it has answered
// eth_chainId with the expected id, and one that reports another chain is refused loudly.
// An endpoint marked publicOnly (discovered, in production) is refused unless it is https and
// at a public address, checked on every connection, not only here (DNS can change).
// Each operation is a function of the pool's context (endpointPoolContext.ts).
import type { EndpointView } from '../ports/endpoint.ts'
import type { RpcCall } from './createJsonRpcClient.ts'
import { type CreateEndpointPoolParameters, createEndpointPoolContext } from './endpointPoolContext.ts'
import { request } from './endpointPoolRequest.ts'
import { sequence } from './endpointPoolSequence.ts'

export type { CreateEndpointPoolParameters } from './endpointPoolContext.ts'

export type EndpointPool = {
  request(args: RpcCall): Promise<unknown>
  /**
   * The calls in one request, in this order, to one endpoint; on to the next endpoint only when
   * none of them got an answer. One settled answer per call.
   */
  sequence(calls: readonly RpcCall[]): Promise<PromiseSettledResult<unknown>[]>
  endpoints(): EndpointView[]
  close(): Promise<void>
}

export function createEndpointPool(parameters: CreateEndpointPoolParameters): EndpointPool {
  const ctx = createEndpointPoolContext(parameters)
  return {
    request: (args) => request(ctx, args),
    sequence: (calls) => sequence(ctx, calls),
    endpoints: () => ctx.all.map((e) => ({ ...e.view })),
    close: async () => {
      await Promise.all(ctx.all.map((e) => e.close()))
    },
  }
}
