// What a journaled transaction's broadcast came to (its outbox slot's answer), for a transaction of
// one execution (sendRelayed.ts) and for a bundle (sendBundled.ts) alike:
// - taken by the node (or already known to it): accepted;
// - fenced off (the key's lease passed to another instance meanwhile) or unanswered (the node may
//   have it): not accepted, its nonce kept, its record left to reconciliation;
// - refused as it is: its nonce given up (closeNonce.ts), then a nonce found too low is the caller's
//   to handle, a relayer out of funds or any other refusal thrown as a RelayerError.
import { type Hex, InsufficientFundsError, NonceTooLowError } from 'viem'
import { RelayerError } from '../../../errors/relayerError.ts'
import { gaveUp } from './closeNonce.ts'
import { isTransportError } from './isTransportError.ts'
import { isAlreadyKnown, isNodeError } from './nodeRefusals.ts'
import { fencedOff } from './outbox.ts'
import type { RelayerContext } from './relayerContext.ts'

/** `accepted`: the node took it, or may have (false: reconciliation delivers it); `nonceTooLow`: the node's refusal for its nonce, which was given up. */
export type BroadcastAnswer = { accepted: boolean } | { nonceTooLow: unknown }

/** The log lines' words for what was broadcast: one execution's transaction, or a bundle. */
type Told = { notSent: string; unanswered: string }

const told: Record<'transaction' | 'bundle', Told> = {
  transaction: {
    notSent:
      'not broadcast: the relayer key was leased to another instance meanwhile; its holder reconciles the record',
    unanswered:
      'no answer to the broadcast; the transaction stays in the journal and will be delivered by reconciliation',
  },
  bundle: {
    notSent:
      'a bundle was not broadcast: the relayer key was leased to another instance meanwhile; its holder reconciles the records',
    unanswered: 'no answer to a bundle broadcast; it stays in the journal and will be delivered by reconciliation',
  },
}

export async function broadcastAnswer(
  ctx: RelayerContext,
  sent: PromiseSettledResult<unknown>,
  { nonce, transactionHash, what }: { nonce: number; transactionHash: Hex; what: 'transaction' | 'bundle' },
): Promise<BroadcastAnswer> {
  if (sent.status === 'fulfilled' || isAlreadyKnown(sent.reason)) return { accepted: true }
  const err = sent.reason
  if (err === fencedOff) {
    // Nothing was sent; its nonce is not closed here (the key is not this instance's), and the
    // journaled record is settled by the key's holder, so this answers as a lost broadcast.
    ctx.nextNonce = undefined
    ctx.logger.warn({ nonce, transactionHash }, told[what].notSent)
    return { accepted: false }
  }
  if (isTransportError(err)) {
    // The node may have it: the nonce stays its own, and reconciliation broadcasts it again if not.
    ctx.logger.warn({ nonce, transactionHash }, told[what].unanswered)
    return { accepted: false }
  }
  await gaveUp(ctx, transactionHash, nonce, err)
  if (isNodeError(err, NonceTooLowError, /nonce too low/i)) return { nonceTooLow: err }
  if (isNodeError(err, InsufficientFundsError, /insufficient funds/i))
    throw new RelayerError('The relayer wallet cannot pay for gas', {
      cause: err,
      details: `relayer ${ctx.account.address} is out of funds`,
    })
  throw new RelayerError('The relayer could not send the transaction', { cause: err })
}
