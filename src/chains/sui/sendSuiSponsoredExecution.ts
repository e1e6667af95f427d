// Send a sponsored execute: the relayer signs the issued bytes as gas owner (once: the
// sponsorship is forgotten before it signs), journals both signatures, broadcasts with
// [sender's, sponsor's]. The sponsorship's own gas coin pays, so the relayer's send lock (its main
// coin's versions) is not needed. A lost answer leaves the record pending for reconciliation.
import { TransactionDataBuilder } from '@mysten/sui/transactions'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { RelayerError } from '../../errors/relayerError.ts'
import type { SignedExecution, Submission } from '../../ports/chainAdapter.ts'
import { Status } from '../../status/statusCodes.ts'
import { callSui } from './callSui.ts'
import type { IssuedSponsorship } from './createIssuedSponsorships.ts'
import type { SuiContext } from './suiContext.ts'
import { suiSponsoredTransaction } from './suiSponsoredTransaction.ts'
import { toSuiReceipt } from './toSuiReceipt.ts'
import { watchSuiTransaction } from './watchSuiTransaction.ts'

export type SendSuiSponsoredParameters = {
  intentHash: string
  issued: IssuedSponsorship
  /** The sender's serialized signature of `issued.txBytes`, base64, checked. */
  agentSignature: string
  onSigned(tx: SignedExecution): void | Promise<void>
}

export async function sendSuiSponsoredExecution(
  ctx: SuiContext,
  { intentHash, issued, agentSignature, onSigned }: SendSuiSponsoredParameters,
): Promise<Submission> {
  const { keypair, relayer } = ctx
  if (!keypair || !relayer) throw new Error('sendSuiSponsoredExecution called on a chain without a relayer')
  if (ctx.keyHold && !ctx.keyHold.holdsNow()) {
    throw new GatewayError('No relayer key is available to send the execution', {
      code: 'RELAYER_UNAVAILABLE',
      status: Status.UNAVAILABLE,
      details: `this instance no longer holds the Sui relayer key of ${ctx.chainId} (its lease lapsed): nothing was signed`,
      headers: { 'retry-after': '2' },
    })
  }
  // Signed once: a second execute of the same intent finds no sponsorship and is asked to sign anew.
  ctx.sponsorships.consume(intentHash)
  const bytes = issued.txBytes
  const { signature: sponsorSignature } = await keypair.signTransaction(bytes)
  const digest = TransactionDataBuilder.getDigestFromBytes(bytes)
  const signatures = [agentSignature, sponsorSignature]
  const signed = suiSponsoredTransaction
    .serialize({ transaction: bytes, signatures: signatures.map((s) => Buffer.from(s, 'base64')) })
    .toBytes()
  const { objectId, version } = issued.gasCoin
  await onSigned({
    id: digest,
    bytes: Buffer.from(signed).toString('base64'),
    relayer,
    details: { mode: 'account', gasCoin: { objectId, version } },
  })
  try {
    const result = await callSui(ctx, 'executeTransaction', 'execution of the sponsored execute', (signal) =>
      ctx.client.core.executeTransaction({
        transaction: bytes,
        signatures,
        include: { effects: true, events: true },
        signal,
      }),
    )
    ctx.log.info(
      { transactionHash: digest, success: result.$kind === 'Transaction', gasCoin: objectId },
      'sponsored execute sent',
    )
    const executed = toSuiReceipt(ctx, digest, result)
    const receipt =
      executed.blockNumber > 0n ? Promise.resolve(executed) : watchSuiTransaction(ctx, digest).catch(() => executed)
    return { transactionHash: digest, accepted: true, receipt }
  } catch (err) {
    if (err instanceof ChainUnavailableError) {
      ctx.log.warn(
        { transactionHash: digest },
        'no answer to the sponsored execute broadcast; reconciliation takes over',
      )
      return { transactionHash: digest, accepted: false, receipt: watchSuiTransaction(ctx, digest) }
    }
    throw new RelayerError('The Sui node refused the sponsored execute transaction', {
      cause: err,
      details: err instanceof GatewayError ? err.details : undefined,
    })
  }
}
