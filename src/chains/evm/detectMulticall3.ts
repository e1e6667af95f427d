// Whether the chain has Multicall3 at its canonical address, asked once (and again a while after
// the answer was no: a node may be replaced, a devnet reset).
import type { Hex } from 'viem'
import type { CallBatcherContext } from './callBatcherContext.ts'
import { multicall3Address } from './multicall3Address.ts'

/** How long a chain found without Multicall3 is asked again. */
const recheckMs = 60_000

export function detectMulticall3(ctx: CallBatcherContext): void {
  if (!ctx.enabled || ctx.checking || ctx.present === true) return
  if (ctx.present === false && Date.now() - ctx.checkedAt < recheckMs) return
  ctx.checking = (async () => {
    try {
      const code = (await ctx.request({ method: 'eth_getCode', params: [multicall3Address, 'latest'] })) as Hex
      const now = typeof code === 'string' && code.length > 2
      if (now !== ctx.present)
        ctx.logger.info(
          { multicall3: multicall3Address, folding: now },
          now
            ? 'Multicall3 found: concurrent validator reads are folded into one call'
            : 'no Multicall3 on this chain: each validator read is its own call',
        )
      ctx.present = now
    } catch {
      // Unknown until the node answers; calls go out alone meanwhile.
    } finally {
      ctx.checkedAt = Date.now()
      ctx.checking = undefined
    }
  })()
}
