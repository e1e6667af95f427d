// What one endpoint's JSON-RPC client works with (createJsonRpcClient.ts): its keep-alive
// connections, the calls waiting for the end of the turn, and whether the node takes batches.
import type { LookupFunction } from 'node:net'
import { Pool } from 'undici'

/** One JSON-RPC call; `alone`: sent at once in a request of its own, not batched (a folded read). */
export type RpcCall = { method: string; params?: unknown; alone?: boolean }

export type CreateJsonRpcClientParameters = {
  url: string
  headers?: Record<string, string>
  timeoutMs: number
  maxBatchSize?: number
  /**
   * Into how many requests (at most) one turn's calls are split: a node runs the calls of one
   * batch one after another, so one batch per turn would serialize work the node can do in parallel.
   */
  spread?: number
  /** A turn's queue this long is sent at once rather than at the end of the turn. */
  flushAt?: number
  connections?: number
  /** Resolves host names for each new connection (and may refuse them); DNS as usual when absent. */
  lookup?: LookupFunction | undefined
}

/** A call on its way: its JSON-RPC body and how its caller is answered. */
export type Call = {
  body: { jsonrpc: '2.0'; id: number; method: string; params: unknown }
  resolve(v: unknown): void
  reject(e: unknown): void
}

export type JsonRpcContext = {
  url: string
  /** The URL's path and query: what each POST asks for on the pool's origin. */
  path: string
  pool: Pool
  requestHeaders: Record<string, string>
  maxBatchSize: number
  spread: number
  flushAt: number
  /** The turn's calls, sent at its end (or as soon as `flushAt` of them wait). */
  queue: Call[]
  scheduled: boolean
  /** False once the node answered a batch with something other than an array: one call a request from then on. */
  batching: boolean
  nextId: number
}

export function createJsonRpcContext({
  url,
  headers = {},
  timeoutMs,
  maxBatchSize = 100,
  spread = 4,
  flushAt = 16,
  connections = 16,
  lookup,
}: CreateJsonRpcClientParameters): JsonRpcContext {
  const target = new URL(url)
  return {
    url,
    path: `${target.pathname}${target.search}`,
    pool: new Pool(target.origin, {
      connections,
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(lookup ? { connect: { lookup } } : {}),
    }),
    requestHeaders: { 'content-type': 'application/json', ...headers },
    maxBatchSize,
    spread,
    flushAt,
    queue: [],
    scheduled: false,
    batching: true,
    nextId: 1,
  }
}

export const toCall = (
  ctx: JsonRpcContext,
  { method, params }: RpcCall,
  resolve: (v: unknown) => void,
  reject: (e: unknown) => void,
): Call => ({
  body: { jsonrpc: '2.0', id: ctx.nextId++, method, params: params ?? [] },
  resolve,
  reject,
})
