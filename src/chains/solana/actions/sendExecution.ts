// Sends a signed, simulated execute transaction after the journal has it (onSigned). A broadcast
// that got no answer is not a failure: the node may have it, and reconciliation delivers it.
import { ChainUnavailableError } from '../../../errors/chainUnavailableError.ts'
import type { SignedExecution, Submission } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { broadcastTransaction } from './broadcastTransaction.ts'
import { watchSignature } from './watchSignature.ts'

export async function sendExecution(
  ctx: SolanaContext,
  signed: SignedExecution,
  {
    onSigned,
    signer,
    intent,
  }: { onSigned: (tx: SignedExecution) => void | Promise<void>; signer: string; intent: Intent },
): Promise<Submission> {
  await onSigned(signed)
  let accepted = true
  try {
    await broadcastTransaction(ctx, signed.bytes)
  } catch (err) {
    if (!(err instanceof ChainUnavailableError)) throw err
    accepted = false
    ctx.log.warn(
      { transactionHash: signed.id },
      'no answer to the broadcast; the transaction stays in the journal and will be delivered by reconciliation',
    )
  }
  ctx.log.info({ transactionHash: signed.id, accepted, signer }, 'execute sent')
  return { transactionHash: signed.id, accepted, receipt: watchSignature(ctx, signed, intent) }
}
