// The gas an execute pays with: the reference gas price and the relayer's richest SUI coin that
// covers the budget, at its current version (read fresh for every transaction).
import { RelayerError } from '../../errors/relayerError.ts'
import type { SuiGas } from './buildSuiTransaction.ts'
import { callSui } from './callSui.ts'
import type { SuiContext } from './suiContext.ts'

export async function selectSuiGas(ctx: SuiContext, relayer: string, budget: bigint): Promise<SuiGas> {
  const [{ referenceGasPrice }, { objects }] = await Promise.all([
    callSui(ctx, 'getReferenceGasPrice', 'reference gas price request', (signal) =>
      ctx.client.core.getReferenceGasPrice({ signal }),
    ),
    callSui(ctx, 'listCoins', 'gas coin lookup', (signal) => ctx.client.core.listCoins({ owner: relayer, signal })),
  ])
  const coin = objects
    .filter((c) => BigInt(c.balance) >= budget)
    .sort((a, b) => (BigInt(b.balance) > BigInt(a.balance) ? 1 : -1))[0]
  if (!coin) throw new RelayerError(`The relayer ${relayer} has no SUI coin covering a gas budget of ${budget} MIST`)
  return {
    price: BigInt(referenceGasPrice),
    budget,
    payment: [{ objectId: coin.objectId, version: coin.version, digest: coin.digest }],
  }
}
