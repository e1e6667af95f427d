// Recovery of a reserved Solana payment no request holds: the settlement's transaction id (kept
// from the reservation on) says it: confirmed → settled; failed → released; never seen → released
// once its blockhash can no longer land: expired by the node's finalized bank (the blockhash is
// kept with the reservation), or at the latest past its validBefore.
import type { PaymentRecord } from '../../../ports/paymentLedger.ts'
import { isSettlementPending } from '../../settlementPending.ts'
import type { RecoveryContext, ResolvedPayment } from '../paymentMechanism.ts'
import type { SvmChainReads } from './createSvmChainReads.ts'

export async function resolveSvmPayment(
  payment: PaymentRecord,
  context: RecoveryContext<SvmChainReads>,
): Promise<ResolvedPayment | undefined> {
  const { ledger, when, reads, leftReserved } = context
  const { solanaStatusOf, solanaNowOf } = reads
  const pending = isSettlementPending(payment) ? 'its settlement was pending; ' : ''
  if (!payment.transaction) {
    // A remote facilitator's settlement has no id known here: nothing on the chain tells this reservation's fate.
    leftReserved(
      'warn',
      { paymentId: payment.id, network: payment.network },
      'Solana reservation left reserved: its settlement transaction is not known (remote facilitator); it pays for nothing else',
    )
    return undefined
  }
  const status = await solanaStatusOf(payment.network, payment.transaction)
  if (status.state === 'confirmed') {
    await ledger.markSettled(
      payment.id,
      payment.transaction,
      `resolved (${when}): ${pending}the settlement transaction is confirmed`,
    )
    return { payment, outcome: 'settled', transaction: payment.transaction, reason: 'used' }
  }
  if (status.state === 'failed') {
    await ledger.markReleased(
      payment.id,
      `resolved (${when}): ${pending}the settlement transaction failed on-chain (${status.error.slice(0, 200)}), nothing was charged`,
    )
    return { payment, outcome: 'released', transaction: undefined, reason: 'failed' }
  }
  // Not seen at all, and its blockhash expired by the finalized bank: no block can take it any more.
  // The status is read again after the expiry, so a settlement that landed before it is found.
  if (!status.seen && (await blockhashExpired(payment, context))) {
    const last = await solanaStatusOf(payment.network, payment.transaction)
    if (last.state === 'unknown' && !last.seen) {
      await ledger.markReleased(
        payment.id,
        `resolved (${when}): ${pending}the settlement never landed and can no longer (its blockhash expired), nothing was charged`,
      )
      return { payment, outcome: 'released', transaction: undefined, reason: 'expired' }
    }
    return undefined // seen meanwhile: the next pass decides
  }
  // Unseen: its blockhash may still let it land until validBefore (set past any blockhash's life).
  if (payment.validBefore !== undefined && (await solanaNowOf(payment.network)) >= payment.validBefore) {
    await ledger.markReleased(
      payment.id,
      `resolved (${when}): ${pending}the settlement never landed and can no longer (its blockhash expired), nothing was charged`,
    )
    return { payment, outcome: 'released', transaction: undefined, reason: 'expired' }
  }
  leftReserved(
    'info',
    { paymentId: payment.id, network: payment.network, validBefore: payment.validBefore?.toString() },
    'Solana reservation left reserved: its settlement could still land; resolved once confirmed or expired',
  )
  return undefined
}

/** Whether the blockhash kept with a Solana reservation has expired (false when none was kept or the node cannot say). */
async function blockhashExpired(
  payment: PaymentRecord,
  { ledger, log, reads: { solanaBlockhashExpiredOf } }: RecoveryContext<SvmChainReads>,
): Promise<boolean> {
  const kept = await ledger.settlementPayloadOf(payment.id)
  let blockhash: unknown
  try {
    blockhash = kept ? (JSON.parse(kept) as { solanaBlockhash?: unknown }).solanaBlockhash : undefined
  } catch {
    return false
  }
  if (typeof blockhash !== 'string') return false
  return solanaBlockhashExpiredOf(payment.network, blockhash).catch((err: unknown) => {
    log.warn(
      { err, paymentId: payment.id, network: payment.network },
      "a Solana reservation's blockhash could not be checked: it is released at its bound",
    )
    return false
  })
}
