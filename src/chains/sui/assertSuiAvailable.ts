// A chain marked unavailable at start-up (its deployment missing) answers 503 to every request.
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import type { SuiContext } from './suiContext.ts'

export function assertSuiAvailable(ctx: SuiContext): void {
  if (ctx.unavailableReason)
    throw new ChainUnavailableError(ctx.chainId, { details: ctx.unavailableReason, retryAfterSeconds: 60 })
}
