// JSON-RPC over HTTP for one endpoint, built for a gateway's load: keep-alive connections from
// undici's Pool (Node's fetch builds web streams and abort signals per call, which cost more
// than the call itself), and the calls made in one event-loop turn sent as one JSON-RPC batch.
// Failures are raised as viem's own error classes, so viem decodes reverts as usual.
import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem'
import type { LookupFunction } from 'node:net'
import { Pool, errors as undiciErrors } from 'undici'

/** One JSON-RPC call; `alone`: sent at once in a request of its own, not batched (a folded read). */
export type RpcCall = { method: string; params?: unknown; alone?: boolean }

export type JsonRpcClient = {
  request(args: RpcCall): Promise<unknown>
  /**
   * Sends these calls at once in one request, in this order (a node runs one batch's calls one
   * after another): transactions of one sender in nonce order. One answer per call.
   */
  sequence(calls: readonly RpcCall[]): Promise<unknown>[]
  close(): Promise<void>
}

type Call = { body: { jsonrpc: '2.0'; id: number; method: string; params: unknown }; resolve(v: unknown): void; reject(e: unknown): void }
type RpcResponse = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } }

export function createJsonRpcClient({
  url,
  headers = {},
  timeoutMs,
  maxBatchSize = 100,
  spread = 4,
  flushAt = 16,
  connections = 16,
  lookup,
}: {
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
}): JsonRpcClient {
  const target = new URL(url)
  const path = `${target.pathname}${target.search}`
  const pool = new Pool(target.origin, { connections, keepAliveTimeout: 30_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, ...(lookup ? { connect: { lookup } } : {}) })
  const requestHeaders = { 'content-type': 'application/json', ...headers }
  let queue: Call[] = []
  let scheduled = false
  let batching = true
  let nextId = 1

  function flush() {
    const calls = queue
    queue = []
    const size = batching ? Math.min(maxBatchSize, Math.ceil(calls.length / spread)) : 1
    for (let i = 0; i < calls.length; i += size) void send(calls.slice(i, i + size))
  }

  async function send(calls: Call[]) {
    const single = calls.length === 1
    const body = JSON.stringify(single ? calls[0]!.body : calls.map((c) => c.body))
    let status: number
    let text: string
    try {
      const res = await pool.request({ path, method: 'POST', headers: requestHeaders, body })
      status = res.statusCode
      text = await res.body.text()
    } catch (err) {
      const timedOut = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError
      for (const c of calls) {
        c.reject(timedOut ? new TimeoutError({ body: c.body, url }) : new HttpRequestError({ body: c.body, url, details: (err as Error).message, cause: err as Error }))
      }
      return
    }
    if (status < 200 || status >= 300) {
      // Never what it said: a URL that is not an RPC node (an admin page) may answer with secrets.
      for (const c of calls) c.reject(new HttpRequestError({ body: c.body, url, status, details: `the endpoint answered HTTP ${status}` }))
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      for (const c of calls) c.reject(new HttpRequestError({ body: c.body, url, status, details: 'the response is not JSON' }))
      return
    }
    if (!single && !Array.isArray(parsed)) {
      // A node that does not take batches: send these (and all later calls) one by one, in order.
      batching = false
      sendInOrder(calls)
      return
    }
    const responses = single ? [parsed as RpcResponse] : (parsed as RpcResponse[])
    const byId = new Map(responses.map((r) => [r?.id, r]))
    for (const c of calls) {
      const r = single ? responses[0] : byId.get(c.body.id)
      if (!r || typeof r !== 'object') c.reject(new HttpRequestError({ body: c.body, url, status, details: 'no response for this call' }))
      else if (r.error) c.reject(new RpcRequestError({ body: c.body, error: r.error, url }))
      else c.resolve(r.result)
    }
  }

  /** Each call after the previous one's answer. */
  const sendInOrder = (calls: Call[]) => void calls.reduce<Promise<void>>((previous, call) => previous.then(() => send([call])), Promise.resolve())
  const toCall = ({ method, params }: RpcCall, resolve: (v: unknown) => void, reject: (e: unknown) => void): Call => ({
    body: { jsonrpc: '2.0', id: nextId++, method, params: params ?? [] },
    resolve,
    reject,
  })

  return {
    sequence(calls) {
      const batch: Call[] = []
      const answers = calls.map((c) => new Promise((resolve, reject) => void batch.push(toCall(c, resolve, reject))))
      // A node that takes no batches gets them one by one, each after the previous one's answer.
      if (batching) void send(batch)
      else sendInOrder(batch)
      return answers
    },
    request(args) {
      return new Promise((resolve, reject) => {
        const call = toCall(args, resolve, reject)
        if (args.alone) return void send([call])
        queue.push(call)
        // A full batch goes at once: the node starts on it while later requests are still read.
        if (queue.length >= flushAt) return flush()
        if (!scheduled) {
          scheduled = true
          // setImmediate, not a microtask: calls from other requests read in the same I/O phase join the batch.
          setImmediate(() => {
            scheduled = false
            flush()
          })
        }
      })
    },
    close: () => pool.close(),
  }
}
