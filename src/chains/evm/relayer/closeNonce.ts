// A transaction that will never be sent (refused by the node, or its journal write failed): its
// nonce is closed, under the lock, so that no later transaction waits above a gap.
import { type Hex, keccak256, NonceTooLowError } from 'viem'
import { currentFees } from './currentFees.ts'
import { isAlreadyKnown, isNodeError } from './nodeRefusals.ts'
import { post } from './outbox.ts'
import type { RelayerContext } from './relayerContext.ts'

/** How many refused transactions the nonce floor keeps ignoring (their records are released soon after). */
const refusedKept = 256
/** Gas of a plain value transfer: what a filler transaction uses. */
const fillerGas = 21_000n

export async function gaveUp(ctx: RelayerContext, transactionHash: Hex, nonce: number, err: unknown): Promise<void> {
  const { refused } = ctx
  refused.add(transactionHash)
  if (refused.size > refusedKept) refused.delete(refused.values().next().value!)
  await ctx.lock.run(() => afterRefusal(ctx, nonce, err))
}

/**
 * Under the lock, after the node refused the transaction at `nonce`: nothing of it is at the
 * node. Its nonce is read again when it was the last handed out; a nonce too low was taken
 * already; otherwise later transactions wait behind it, so it is filled. The filler is not
 * journaled: a crash before it is sent leaves the later transactions above a gap, which the
 * reconciler settles as dropped (their intents not executed, and sendable again: the executor's
 * nonce check stops a second execution) although the node may still hold and later mine them.
 */
async function afterRefusal(ctx: RelayerContext, nonce: number, err: unknown) {
  const { nextNonce, logger } = ctx
  if (nextNonce === undefined || nextNonce <= nonce) return // read again since: nothing to close
  if (nextNonce === nonce + 1 || isNodeError(err, NonceTooLowError, /nonce too low/i)) {
    ctx.nextNonce = undefined
    return
  }
  const filler = await sendFiller(ctx, nonce)
  if (filler.status === 'fulfilled' || isAlreadyKnown(filler.reason)) {
    logger.warn(
      { nonce, later: nextNonce - nonce - 1 },
      'a refused broadcast left a nonce gap under later transactions; filled it with a no-op transaction',
    )
    return
  }
  logger.error(
    { nonce, err: filler.reason },
    'a refused broadcast left a nonce gap under later transactions and the no-op transaction to fill it was refused too; the relayer reads its nonce again and reconciliation settles what cannot mine',
  )
  ctx.nextNonce = undefined
}

/**
 * A zero-value transfer to itself at `nonce`, at the market's fees, broadcast in nonce order: what
 * fills a nonce nothing else will use. Called under the lock. Its answer, never a throw.
 */
export function sendFiller(ctx: RelayerContext, nonce: number): Promise<PromiseSettledResult<unknown>> {
  const { account, chainId } = ctx
  return currentFees(ctx)
    .then((fees) =>
      account.signTransaction({
        chainId,
        type: 'eip1559',
        to: account.address,
        value: 0n,
        gas: fillerGas,
        nonce,
        ...fees,
      }),
    )
    .then((raw) => post(ctx, raw, nonce, keccak256(raw)))
    .catch((reason: unknown): PromiseSettledResult<unknown> => ({ status: 'rejected', reason }))
}
