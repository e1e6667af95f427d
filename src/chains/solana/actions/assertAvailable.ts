// A chain marked unavailable (its program or config missing at start-up) answers 503 to everything.
import { ChainUnavailableError } from '../../../errors/chainUnavailableError.ts'
import type { SolanaContext } from '../solanaContext.ts'

export function assertAvailable(ctx: SolanaContext): void {
  const reason = ctx.state.unavailableReason
  if (reason) throw new ChainUnavailableError(ctx.chain.chainId, { details: reason, retryAfterSeconds: 60 })
}
