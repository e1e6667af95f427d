// One send: a nonce and a signature under the lock, the journal write started there and waited
// for outside it, then the broadcast in nonce order; a refusal closes the nonce, a nonce found too
// low is tried once more, a lost answer keeps the nonce for the journal to deliver.
import { RelayerError } from '../../../errors/relayerError.ts'
import { RelayerLeaseMovedError } from '../../../errors/relayerLeaseMovedError.ts'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'
import { broadcastAnswer } from './broadcastAnswer.ts'
import { gaveUp } from './closeNonce.ts'
import { currentFees } from './currentFees.ts'
import { releaseSlot, reserveSlot } from './outbox.ts'
import type { RelayedTransaction, SendResult } from './relayedTransaction.ts'
import type { RelayerContext } from './relayerContext.ts'
import { readNonce, signRelayed } from './signRelayed.ts'

/** The send's claim said no: nothing was signed, and no nonce was taken. */
export class NotClaimedError extends Error {
  override name = 'NotClaimedError'
  constructor() {
    super('not signed: its claim was refused')
  }
}

/**
 * `claim.take`: asked under the lock right before the signature (synchronously, after the nonce is
 * known); false stops the send (NotClaimedError) with nothing signed. `claim.failed`: the signature
 * failed after a claim.
 */
export type SendClaim = { take(): boolean; failed(): void }

export async function sendRelayed(
  ctx: RelayerContext,
  tx: RelayedTransaction,
  { onSigned, claim }: { onSigned?: (tx: SignedExecution) => void | Promise<void>; claim?: SendClaim | undefined } = {},
): Promise<SendResult> {
  const { logger } = ctx
  const txFees =
    tx.fees ??
    (await currentFees(ctx).catch((cause) => {
      throw new RelayerError('Could not read gas prices from the chain', { cause })
    }))
  for (let attempt = 0; ; attempt++) {
    const { signed, nonce, slot, journaled } = await ctx.lock.run(async () => {
      // The lease it is signed under, read once: the journal records it and the outbox sends it
      // only while the key is still held under it. A key no longer held signs nothing.
      const epoch = ctx.leaseEpoch?.()
      if (ctx.leaseEpoch && epoch === undefined)
        throw new RelayerLeaseMovedError(`eip155:${ctx.chainId}`, ctx.address, undefined)
      ctx.nextNonce ??= await readNonce(ctx)
      const nonce = ctx.nextNonce
      if (claim && !claim.take()) throw new NotClaimedError()
      const { rawTransaction, call, ...signed } = await signRelayed(ctx, tx, txFees, nonce).catch((err: unknown) => {
        claim?.failed()
        throw err
      })
      if (ctx.leaseEpoch) signed.transaction.leaseEpoch = epoch
      ctx.nextNonce = nonce + 1
      // The journal write starts under the lock, so the journal records transactions in nonce
      // order; it is waited for outside it (several writes share one fsync).
      let journaled: Promise<void>
      try {
        journaled = Promise.resolve(onSigned?.(signed.transaction))
      } catch (err) {
        journaled = Promise.reject(err)
      }
      journaled.catch(() => {}) // handled below, after the lock
      const slot = reserveSlot(ctx, rawTransaction, nonce, signed.transactionHash, call, epoch)
      return { signed, nonce, slot, journaled }
    })
    // Broadcast once journaled, in nonce order.
    try {
      await journaled
    } catch (err) {
      releaseSlot(ctx, slot, false)
      if (err instanceof RelayerLeaseMovedError) {
        // Not recorded: the key is another instance's now, and so is its nonce (not closed here).
        ctx.nextNonce = undefined
        logger.warn(
          { nonce, transactionHash: signed.transactionHash },
          'not journaled or broadcast: the relayer key was leased to another instance meanwhile',
        )
        throw err
      }
      await gaveUp(ctx, signed.transactionHash, nonce, err)
      throw err
    }
    releaseSlot(ctx, slot, true)
    // Fenced off (the lease passed to another instance while this one waited: a partition from the
    // store, a stalled journal write) or unanswered, it answers as a lost broadcast.
    const answer = await broadcastAnswer(ctx, await slot.answer, {
      nonce,
      transactionHash: signed.transactionHash,
      what: 'transaction',
    })
    if ('accepted' in answer) return { ...signed, accepted: answer.accepted }
    if (attempt > 0) throw new RelayerError('The relayer could not send the transaction', { cause: answer.nonceTooLow })
    logger.warn({ nonce }, 'relayer nonce was behind the node; re-reading it and sending again')
  }
}
