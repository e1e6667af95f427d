// Reads on one block sent as one Multicall3 aggregate3 call, each answered from its own result; or
// one read sent alone, as a plain eth_call.
import type { Hex } from 'viem'
import { decodeAggregate3Result, encodeAggregate3 } from './aggregate3Codec.ts'
import { blockParameter, type CallBatcherContext, type Pending } from './callBatcherContext.ts'
import { detectMulticall3 } from './detectMulticall3.ts'
import { multicall3Address } from './multicall3Address.ts'
import { isTransportError } from './relayer/isTransportError.ts'

export function callAlone(ctx: CallBatcherContext, { to, data, at, resolve, reject }: Pending): void {
  const answer = ctx.request({ method: 'eth_call', params: [{ to, data }, blockParameter(at)] }) as Promise<Hex>
  answer.then(resolve, reject)
}

export async function aggregateCalls(ctx: CallBatcherContext, group: Pending[]): Promise<void> {
  const data = encodeAggregate3(group.map((c) => ({ target: c.to, callData: c.data })))
  let results: readonly { success: boolean; returnData: Hex }[]
  try {
    const returned = (await ctx.request({
      method: 'eth_call',
      params: [{ to: multicall3Address, data }, blockParameter(group[0]!.at)],
      alone: true,
    })) as Hex
    results = decodeAggregate3Result(returned)
    if (results.length !== group.length)
      throw new Error(`aggregate3 answered ${results.length} results for ${group.length} calls`)
  } catch (err) {
    // An unreachable node fails every call the same way, at once: no second wait for each.
    if (isTransportError(err)) {
      for (const c of group) c.reject(err)
      return
    }
    // Anything else (no Multicall3 here any more, a gas cap, an answer that does not decode):
    // each call alone, and Multicall3 looked for again.
    ctx.logger.warn({ err, calls: group.length }, 'a folded read failed; sending its calls one by one')
    ctx.present = undefined
    ctx.checkedAt = 0
    detectMulticall3(ctx)
    for (const c of group) callAlone(ctx, c)
    return
  }
  results.forEach((r, i) => {
    const c = group[i]!
    // A reverted call answers only its own request, with the node's own error for it.
    if (r.success) c.resolve(r.returnData)
    else callAlone(ctx, c)
  })
}
