// What an agent signs in account mode on Sui: the sponsored TransactionData the gateway issued for
// the intent (base64), its sender (the agent), gas owner (the relayer), gas budget and coin.
// Before it is issued (validate, or an execute refused before one was built), how to get one.
import { Transaction } from '@mysten/sui/transactions'
import type { SigningRequest } from '../../ports/chainAdapter.ts'
import type { Intent } from '../../ports/intent.ts'
import type { SuiContext } from './suiContext.ts'
import { suiRuntime } from './suiRuntime.ts'

export function suiSponsoredSigningRequest(ctx: SuiContext, intent: Intent): SigningRequest {
  const intentHash = suiRuntime.hashIntent(intent)
  const issued = ctx.sponsorships.get(intentHash)
  const base = { scheme: 'sui-transaction', mode: 'account', intentHash, gasOwner: ctx.relayer }
  if (!issued) {
    return {
      ...base,
      instructions:
        'account mode: POST the intent to /intents/execute with `mode: "account"` and no signature; the 401 answer carries the sponsored transaction to sign in `signing.txBytes`',
    }
  }
  const { gasData } = Transaction.from(issued.txBytes).getData()
  return {
    ...base,
    txBytes: Buffer.from(issued.txBytes).toString('base64'),
    encoding: 'base64',
    digest: issued.digest,
    gasBudget: gasData.budget?.toString(),
    gasPrice: gasData.price?.toString(),
    gasCoin: issued.gasCoin.objectId,
    instructions:
      'account mode: sign `txBytes` (a Sui TransactionData whose sender is the intent\'s sender and whose gas owner is `gasOwner`, the relayer) with the sender key through signTransaction, and send the serialized signature (flag ‖ signature ‖ public key) as 0x hex in `signature` with the same intent and `mode: "account"`; the relayer co-signs only these bytes',
  }
}
