// Reconcile a journaled transaction: the node's record of it if it has one; else broadcast the
// journaled bytes again; refused now (its gas coin moved on) and still unknown to the node, it
// never ran, and whether the intent ran anyway the module's nonce says.
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { ReconcileRequest, Reconciliation } from '../../ports/chainAdapter.ts'
import { Status } from '../../status/statusCodes.ts'
import { assertSuiAvailable } from './assertSuiAvailable.ts'
import { callSui } from './callSui.ts'
import type { SuiContext } from './suiContext.ts'
import { suiSignedTransaction } from './suiSignedTransaction.ts'
import { suiSponsoredTransaction } from './suiSponsoredTransaction.ts'
import { toSuiReceipt } from './toSuiReceipt.ts'
import { validateSuiIntent } from './validateSuiIntent.ts'

export async function reconcileSuiTransaction(ctx: SuiContext, tx: ReconcileRequest): Promise<Reconciliation> {
  assertSuiAvailable(ctx)
  const digest = tx.id
  const known = await lookUp(ctx, digest)
  if (known) return known
  const { transaction, signatures } = journaledSignatures(tx)
  try {
    const result = await callSui(ctx, 'executeTransaction', 'rebroadcast of execute', (signal) =>
      ctx.client.core.executeTransaction({ transaction, signatures, include: { effects: true }, signal }),
    )
    ctx.log.warn({ transactionHash: digest }, 'the node had lost a journaled transaction; broadcast it again')
    return { kind: 'settled', receipt: toSuiReceipt(ctx, digest, result) }
  } catch (err) {
    if (err instanceof ChainUnavailableError) throw err
    // Refused because the same bytes ran meanwhile (a key's new holder delivering what the last
    // holder left, beside its own reconciler): the node has it now, and it is this intent's.
    const ranMeanwhile = await lookUp(ctx, digest)
    if (ranMeanwhile) return ranMeanwhile
    const { status } = await validateSuiIntent(ctx, tx.intent)
    const executed = status === Status.NONCE_USED
    return {
      kind: 'dropped',
      executed,
      detail: `transaction ${digest} was refused when sent again; the intent ${executed ? 'was executed by another transaction' : 'was not executed and may be sent again'}`,
    }
  }
}

/** The node's record of the transaction, settled; undefined when it has none (NOT_FOUND). */
async function lookUp(ctx: SuiContext, digest: string): Promise<Reconciliation | undefined> {
  try {
    const found = await callSui(ctx, 'getTransaction', 'transaction lookup', (signal) =>
      ctx.client.core.getTransaction({ digest, include: { effects: true }, signal }),
    )
    return { kind: 'settled', receipt: toSuiReceipt(ctx, digest, found) }
  } catch (err) {
    if (err instanceof GatewayError && /NOT_FOUND/.test(err.details ?? '')) return undefined
    throw err
  }
}

/** The journaled bytes: the relayer's own transaction (one signature), or a sponsored one (account mode: the sender's and the sponsor's). */
function journaledSignatures(tx: ReconcileRequest): { transaction: Uint8Array; signatures: string[] } {
  const raw = Buffer.from(tx.bytes, 'base64')
  if (tx.details?.mode === 'account') {
    const { transaction, signatures } = suiSponsoredTransaction.parse(raw)
    return {
      transaction: new Uint8Array(transaction),
      signatures: signatures.map((s) => Buffer.from(s).toString('base64')),
    }
  }
  const { transaction, signature } = suiSignedTransaction.parse(raw)
  return { transaction: new Uint8Array(transaction), signatures: [Buffer.from(signature).toString('base64')] }
}
