// The last check before the relayer signs as sponsor, on the very bytes it will sign: a
// transaction of the intent's sender, gas owned by the relayer and paid from the sponsorship's own
// coin only, a budget within the cap, one Move call of our module's execute and no use of GasCoin.
// The gateway builds these bytes itself; this check makes sure that stays true whatever changes
// upstream (a builder edit, a coin mix-up), and answers why when it does not.
import { Transaction } from '@mysten/sui/transactions'
import { normalizeSuiAddress } from '@mysten/sui/utils'
import type { SuiObjectRef } from './buildSuiTransaction.ts'
import { findGasCoinUse } from './findGasCoinUse.ts'
import type { SuiContext } from './suiContext.ts'
import { suiIntentModule } from './suiIntentModule.ts'

export type SponsorableExpectation = { sender: string; sponsor: string; gasCoin: SuiObjectRef; maxBudget: bigint }

/** Why the relayer must not sponsor these bytes, or undefined when it may. */
export function checkSponsorable(
  ctx: Pick<SuiContext, 'packageId'>,
  txBytes: Uint8Array,
  expected: SponsorableExpectation,
): string | undefined {
  let data: ReturnType<Transaction['getData']>
  try {
    data = Transaction.from(txBytes).getData()
  } catch {
    return 'the bytes are not a Sui TransactionData'
  }
  const gasCoinUse = findGasCoinUse(txBytes)
  if (gasCoinUse !== undefined)
    return `command ${gasCoinUse} uses GasCoin: a sponsored transaction may not touch the sponsor's gas coin`
  if (normalizeSuiAddress(data.sender ?? '0x0') !== normalizeSuiAddress(expected.sender))
    return `its sender ${data.sender} is not the intent's sender`
  if (normalizeSuiAddress(data.gasData.owner ?? '0x0') !== normalizeSuiAddress(expected.sponsor))
    return `its gas owner ${data.gasData.owner} is not the relayer`
  const budget = BigInt(data.gasData.budget ?? 0)
  if (budget > expected.maxBudget)
    return `its gas budget ${budget} MIST is above the sponsorship cap ${expected.maxBudget} MIST`
  const payment = data.gasData.payment ?? []
  const [coin] = payment
  if (
    payment.length !== 1 ||
    coin!.objectId !== expected.gasCoin.objectId ||
    coin!.version !== expected.gasCoin.version
  )
    return "it does not pay from the sponsorship's own gas coin alone"
  const [command, ...rest] = data.commands
  const call = command?.MoveCall
  if (rest.length > 0 || !call) return 'it is not a single Move call'
  if (
    normalizeSuiAddress(call.package) !== ctx.packageId ||
    call.module !== suiIntentModule.module ||
    call.function !== suiIntentModule.execute
  )
    return `its Move call ${call.package}::${call.module}::${call.function} is not ${suiIntentModule.module}::${suiIntentModule.execute} of this deployment`
  return undefined
}
