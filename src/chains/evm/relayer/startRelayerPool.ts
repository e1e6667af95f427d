// The pool's life: the first claim and balance read, then both again in the background, until close.
import { claimLeases } from './claimLeases.ts'
import { readBalances } from './readBalances.ts'
import type { RelayerPoolContext } from './relayerPoolContext.ts'

export async function startRelayerPool(ctx: RelayerPoolContext): Promise<void> {
  const { leases, log, timers } = ctx
  await claimLeases(ctx)
  await readBalances(ctx).catch((err: unknown) =>
    log.warn({ err }, 'relayer balances could not be read; keys count as funded until they are'),
  )
  if (Number.isFinite(leases.ttlMs)) {
    // Several times a lease's life: shares settle within a fraction of it when an instance joins or leaves.
    const renew = setInterval(() => {
      if (!ctx.closed)
        claimLeases(ctx).catch((err: unknown) =>
          log.warn({ err }, 'relayer leases could not be renewed; keys stop sending when their leases end'),
        )
    }, leases.ttlMs / 6)
    renew.unref()
    timers.push(renew)
  }
  const balances = setInterval(() => {
    if (!ctx.closed) readBalances(ctx).catch((err: unknown) => log.warn({ err }, 'relayer balances could not be read'))
  }, ctx.balanceIntervalMs)
  balances.unref()
  timers.push(balances)
}

export async function closeRelayerPool(ctx: RelayerPoolContext): Promise<void> {
  ctx.closed = true
  for (const t of ctx.timers) clearInterval(t)
}
