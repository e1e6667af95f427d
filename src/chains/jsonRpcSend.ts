// One HTTP request carrying one call or a batch, and each call answered from what came back.
// Failures are raised as viem's own error classes, so viem decodes reverts as usual.

import { errors as undiciErrors } from 'undici'
import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem'
import type { Call, JsonRpcContext } from './jsonRpcContext.ts'

type RpcResponse = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } }

export async function send(ctx: JsonRpcContext, calls: Call[]): Promise<void> {
  const { url } = ctx
  const single = calls.length === 1
  const body = JSON.stringify(single ? calls[0]!.body : calls.map((c) => c.body))
  let status: number
  let text: string
  try {
    const res = await ctx.pool.request({ path: ctx.path, method: 'POST', headers: ctx.requestHeaders, body })
    status = res.statusCode
    text = await res.body.text()
  } catch (err) {
    const timedOut = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError
    for (const c of calls) {
      c.reject(
        timedOut
          ? new TimeoutError({ body: c.body, url })
          : new HttpRequestError({ body: c.body, url, details: (err as Error).message, cause: err as Error }),
      )
    }
    return
  }
  if (status < 200 || status >= 300) {
    // Never what it said: a URL that is not an RPC node (an admin page) may answer with secrets.
    for (const c of calls)
      c.reject(new HttpRequestError({ body: c.body, url, status, details: `the endpoint answered HTTP ${status}` }))
    return
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    for (const c of calls)
      c.reject(new HttpRequestError({ body: c.body, url, status, details: 'the response is not JSON' }))
    return
  }
  if (!single && !Array.isArray(parsed)) {
    // A node that does not take batches: send these (and all later calls) one by one, in order.
    ctx.batching = false
    sendInOrder(ctx, calls)
    return
  }
  const responses = single ? [parsed as RpcResponse] : (parsed as RpcResponse[])
  const byId = new Map(responses.map((r) => [r?.id, r]))
  for (const c of calls) {
    const r = single ? responses[0] : byId.get(c.body.id)
    if (!r || typeof r !== 'object')
      c.reject(new HttpRequestError({ body: c.body, url, status, details: 'no response for this call' }))
    else if (r.error) c.reject(new RpcRequestError({ body: c.body, error: r.error, url }))
    else c.resolve(r.result)
  }
}

/** Each call after the previous one's answer. */
export const sendInOrder = (ctx: JsonRpcContext, calls: Call[]) =>
  void calls.reduce<Promise<void>>((previous, call) => previous.then(() => send(ctx, [call])), Promise.resolve())
