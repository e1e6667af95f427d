// Send a prepared execute under the relayer's lock: fresh gas coin versions (the previous
// transaction changed them), sign, journal, broadcast. A lost answer leaves the record pending for
// reconciliation; a refusal is the relayer's error (nothing ran).
import type { Signer } from '@mysten/sui/cryptography'
import { TransactionDataBuilder } from '@mysten/sui/transactions'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { RelayerError } from '../../errors/relayerError.ts'
import type { SignedExecution, Submission } from '../../ports/chainAdapter.ts'
import { Status } from '../../status/statusCodes.ts'
import { type BuildSuiValidateParameters, buildSuiExecuteTransaction } from './buildSuiTransaction.ts'
import { callSui } from './callSui.ts'
import { deliverSuiPending } from './deliverSuiPending.ts'
import { selectSuiGas } from './selectSuiGas.ts'
import type { SuiContext } from './suiContext.ts'
import { suiSignedTransaction } from './suiSignedTransaction.ts'
import { toSuiReceipt } from './toSuiReceipt.ts'
import { watchSuiTransaction } from './watchSuiTransaction.ts'

export type SendSuiExecutionParameters = {
  keypair: Signer
  relayer: string
  /** The execute call as simulated: deployment, policy, intent, sender and the sender's signature. */
  call: BuildSuiValidateParameters & { signature: Uint8Array }
  budget: bigint
  onSigned(tx: SignedExecution): void | Promise<void>
}

export function sendSuiExecution(
  ctx: SuiContext,
  { keypair, relayer, call, budget, onSigned }: SendSuiExecutionParameters,
): Promise<Submission> {
  return ctx.sending.run(async () => {
    await deliverSuiPending(ctx, relayer)
    const gas = await selectSuiGas(ctx, relayer, budget)
    const bytes = await buildSuiExecuteTransaction({ ...call, gas })
    // The lease may have lapsed while this send waited for the lock: past it, another instance may sign with the key.
    if (ctx.keyHold && !ctx.keyHold.holdsNow()) {
      throw new GatewayError('No relayer key is available to send the execution', {
        code: 'RELAYER_UNAVAILABLE',
        status: Status.UNAVAILABLE,
        details: `this instance no longer holds the Sui relayer key of ${ctx.chainId} (its lease lapsed): nothing was signed`,
        headers: { 'retry-after': '2' },
      })
    }
    const { signature } = await keypair.signTransaction(bytes)
    const digest = TransactionDataBuilder.getDigestFromBytes(bytes)
    const signed = suiSignedTransaction
      .serialize({ transaction: bytes, signature: Buffer.from(signature, 'base64') })
      .toBytes()
    // A Sui relayer has no account nonce: the gas coin's version orders its transactions.
    const { objectId, version } = gas.payment[0]!
    await onSigned({
      id: digest,
      bytes: Buffer.from(signed).toString('base64'),
      relayer,
      details: { gasCoin: { objectId, version } },
    })
    try {
      const result = await callSui(ctx, 'executeTransaction', 'execution of execute', (signal) =>
        ctx.client.core.executeTransaction({
          transaction: bytes,
          signatures: [signature],
          include: { effects: true, events: true },
          signal,
        }),
      )
      ctx.log.info({ transactionHash: digest, success: result.$kind === 'Transaction' }, 'execute sent')
      const executed = toSuiReceipt(ctx, digest, result)
      // The effects are final; the checkpoint that includes them may come a moment later.
      const receipt =
        executed.blockNumber > 0n ? Promise.resolve(executed) : watchSuiTransaction(ctx, digest).catch(() => executed)
      return { transactionHash: digest, accepted: true, receipt }
    } catch (err) {
      // The answer was lost, not refused: the record stays pending and reconciliation finds out.
      if (err instanceof ChainUnavailableError) {
        ctx.log.warn({ transactionHash: digest }, 'no answer to the execute broadcast; reconciliation takes over')
        return { transactionHash: digest, accepted: false, receipt: watchSuiTransaction(ctx, digest) }
      }
      throw new RelayerError('The Sui node refused the execute transaction', {
        cause: err,
        details: err instanceof GatewayError ? err.details : undefined,
      })
    }
  })
}
