// The calls made in one event-loop turn, sent as JSON-RPC batches at its end (or sooner, once a
// full batch waits); and the calls of one sequence, sent at once in one request, in their order.
import { type Call, type JsonRpcContext, type RpcCall, toCall } from './jsonRpcContext.ts'
import { send, sendInOrder } from './jsonRpcSend.ts'

export function request(ctx: JsonRpcContext, args: RpcCall): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const call = toCall(ctx, args, resolve, reject)
    if (args.alone) return void send(ctx, [call])
    ctx.queue.push(call)
    // A full batch goes at once: the node starts on it while later requests are still read.
    if (ctx.queue.length >= ctx.flushAt) return flush(ctx)
    if (!ctx.scheduled) {
      ctx.scheduled = true
      // setImmediate, not a microtask: calls from other requests read in the same I/O phase join the batch.
      setImmediate(flushTurn, ctx)
    }
  })
}

export function sequence(ctx: JsonRpcContext, calls: readonly RpcCall[]): Promise<unknown>[] {
  const batch: Call[] = []
  const answers = calls.map((c) => new Promise((resolve, reject) => void batch.push(toCall(ctx, c, resolve, reject))))
  // A node that takes no batches gets them one by one, each after the previous one's answer.
  if (ctx.batching) void send(ctx, batch)
  else sendInOrder(ctx, batch)
  return answers
}

function flushTurn(ctx: JsonRpcContext) {
  ctx.scheduled = false
  flush(ctx)
}

function flush(ctx: JsonRpcContext) {
  const calls = ctx.queue
  ctx.queue = []
  const size = ctx.batching ? Math.min(ctx.maxBatchSize, Math.ceil(calls.length / ctx.spread)) : 1
  for (let i = 0; i < calls.length; i += size) void send(ctx, calls.slice(i, i + size))
}
