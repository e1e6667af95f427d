// Folds the eth_calls that requests make in one event-loop turn into one Multicall3 `aggregate3`
// call: the node then runs one call (one JSON-RPC request, one EVM context) for many requests
// instead of one per request. Multicall3 is looked for at its canonical address; where it is
// absent (or stops answering like Multicall3), each call goes out alone, as before.
// Each operation is a function of the batcher's context (callBatcherContext.ts).
import type { Address, Hex } from 'viem'
import { type CreateCallBatcherParameters, createCallBatcherContext } from './callBatcherContext.ts'
import { queueCall } from './queueCall.ts'

export type { CreateCallBatcherParameters } from './callBatcherContext.ts'
export { multicall3Address } from './multicall3Address.ts'

export type CallBatcher = {
  /**
   * eth_call of `data` on `to` at the latest block, or at the block whose hash is `at` (EIP-1898);
   * its return data, or the node's own error.
   */
  call(call: { to: Address; data: Hex; at?: Hex | undefined }): Promise<Hex>
  /** Whether calls are folded into Multicall3 now (undefined: not known yet). */
  folding(): boolean | undefined
}

export function createCallBatcher(parameters: CreateCallBatcherParameters): CallBatcher {
  const ctx = createCallBatcherContext(parameters)
  return {
    call: (call) => queueCall(ctx, call),
    folding: () => ctx.present,
  }
}
