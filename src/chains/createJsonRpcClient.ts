// JSON-RPC over HTTP for one endpoint, built for a gateway's load: keep-alive connections from
// undici's Pool (Node's fetch builds web streams and abort signals per call, which cost more
// than the call itself), and the calls made in one event-loop turn sent as one JSON-RPC batch.
// Each operation is a function of the client's context (jsonRpcContext.ts).
import { type CreateJsonRpcClientParameters, createJsonRpcContext, type RpcCall } from './jsonRpcContext.ts'
import { request, sequence } from './jsonRpcRequest.ts'

export type { CreateJsonRpcClientParameters, RpcCall } from './jsonRpcContext.ts'

export type JsonRpcClient = {
  request(args: RpcCall): Promise<unknown>
  /**
   * Sends these calls at once in one request, in this order (a node runs one batch's calls one
   * after another): transactions of one sender in nonce order. One answer per call.
   */
  sequence(calls: readonly RpcCall[]): Promise<unknown>[]
  close(): Promise<void>
}

export function createJsonRpcClient(parameters: CreateJsonRpcClientParameters): JsonRpcClient {
  const ctx = createJsonRpcContext(parameters)
  return {
    sequence: (calls) => sequence(ctx, calls),
    request: (args) => request(ctx, args),
    close: () => ctx.pool.close(),
  }
}
