// A fresh small gas coin for one sponsorship: the relayer splits `amount` MIST off its own gas coin
// into a new coin of its own (SplitCoins(GasCoin), then TransferObjects to itself), under the
// relayer's send lock (its gas coin's version orders its transactions). A sponsored transaction
// pays only from such a coin: if an agent equivocates (signs a second transaction over the same
// objects), only that coin is locked until the epoch ends, never the relayer's main coin.
// A coin of a sponsorship evicted before it was signed is used again first.
import { Transaction } from '@mysten/sui/transactions'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { RelayerError } from '../../errors/relayerError.ts'
import { Status } from '../../status/statusCodes.ts'
import type { SuiObjectRef } from './buildSuiTransaction.ts'
import { callSui } from './callSui.ts'
import { deliverSuiPending } from './deliverSuiPending.ts'
import { selectSuiGas } from './selectSuiGas.ts'
import type { SuiContext } from './suiContext.ts'

/** What the split itself may cost, in MIST (one SplitCoins and one transfer). */
const splitGasBudget = 10_000_000n

export async function splitSponsorCoin(ctx: SuiContext, amount: bigint): Promise<SuiObjectRef> {
  const reused = ctx.sponsorships.takeFreeCoin()
  if (reused) return reused
  const { keypair, relayer } = ctx
  if (!keypair || !relayer) throw new Error('splitSponsorCoin called on a chain without a relayer')
  return ctx.sending.run(async () => {
    await deliverSuiPending(ctx, relayer)
    const gas = await selectSuiGas(ctx, relayer, splitGasBudget + amount)
    const tx = new Transaction()
    const [coin] = tx.splitCoins(tx.gas, [tx.pure.u64(amount)])
    tx.transferObjects([coin!], tx.pure.address(relayer))
    tx.setSender(relayer)
    tx.setGasOwner(relayer)
    tx.setGasPrice(gas.price)
    tx.setGasBudget(splitGasBudget)
    tx.setGasPayment(gas.payment)
    tx.setExpiration({ None: true })
    const bytes = await tx.build()
    // In a fleet: past its lease another instance may sign with the key (and this coin's version).
    if (ctx.keyHold && !ctx.keyHold.holdsNow()) {
      throw new GatewayError('No relayer key is available to sponsor the execution', {
        code: 'RELAYER_UNAVAILABLE',
        status: Status.UNAVAILABLE,
        details: `this instance no longer holds the Sui relayer key of ${ctx.chainId} (its lease lapsed): nothing was signed`,
        headers: { 'retry-after': '2' },
      })
    }
    const { signature } = await keypair.signTransaction(bytes)
    const result = await callSui(ctx, 'executeTransaction', 'split of a sponsorship gas coin', (signal) =>
      ctx.client.core.executeTransaction({
        transaction: bytes,
        signatures: [signature],
        include: { effects: true },
        signal,
      }),
    ).catch((err: unknown) => {
      if (err instanceof ChainUnavailableError) throw err
      throw new RelayerError('The Sui node refused the split of a sponsorship gas coin', { cause: err })
    })
    const executed = result.$kind === 'Transaction' ? result.Transaction : result.FailedTransaction
    const created = executed.effects?.changedObjects.find(
      (o) =>
        o.idOperation === 'Created' &&
        o.outputState === 'ObjectWrite' &&
        o.outputVersion &&
        o.outputDigest &&
        o.outputOwner?.$kind === 'AddressOwner' &&
        o.outputOwner.AddressOwner === relayer,
    )
    if (result.$kind !== 'Transaction' || !created)
      throw new RelayerError(
        `The split of a sponsorship gas coin of ${amount} MIST did not create a coin of the relayer ${relayer}`,
      )
    ctx.log.info(
      { transactionHash: executed.digest, gasCoin: created.objectId, amount: amount.toString() },
      'split a sponsorship gas coin',
    )
    return { objectId: created.objectId, version: created.outputVersion!, digest: created.outputDigest! }
  })
}
