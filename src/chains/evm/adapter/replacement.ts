// A stuck transaction re-priced: the same relayer nonce, re-signed by the key that signed it, with
// fees raised to the market (at least the node's replacement minimum), within the fee ceiling; a
// type-4 keeps its authorization list.
import { keccak256, parseTransaction } from 'viem'
import type { ReconcileRequest, Replacement } from '../../../ports/chainAdapter.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import { broadcastRaw } from '../relayer/createRelayer.ts'
import type { EvmContext } from './evmContext.ts'

/** A replacement raises both fees by at least this (per mille): geth and anvil want 10%, some nodes 12.5%. */
const replacementBumpPerMille = 1125n
const bump = (v: bigint) => (v * replacementBumpPerMille + 999n) / 1000n
// biome-ignore lint/complexity/useMathMinMax: bigints (Math.max takes numbers)
const max = (...values: bigint[]) => values.reduce((a, b) => (a > b ? a : b))

export async function replacement(
  { relayers, maxFeePerGas, client, chain, log, viemChain }: EvmContext,
  tx: ReconcileRequest,
): Promise<Replacement | undefined> {
  // Re-signed with the key that signed it (same relayer nonce), while this instance holds that key.
  const account = relayers?.holds(tx.relayer) ? relayers.accountOf(tx.relayer) : undefined
  if (!account || maxFeePerGas === undefined) return undefined
  // A bundle (tx.bundle) is re-signed whole, the same run at the same nonce: the reconciler journals
  // every call of it on the re-priced bundle before the one broadcast.
  const original = parseTransaction(evmSignedExecution.rawTransaction(tx))
  // A type-4 (account mode's first execute) is re-priced as itself: the same one authorization,
  // already checked when it was first signed; without it the call would reach a code-less EOA.
  if (
    (original.type !== 'eip1559' && original.type !== 'eip7702') ||
    original.maxFeePerGas === undefined ||
    original.maxPriorityFeePerGas === undefined
  )
    return undefined
  let baseFee: bigint
  let market: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  try {
    const pendingBlock = await client.getBlock({ blockTag: 'pending' })
    baseFee = pendingBlock.baseFeePerGas ?? 0n
    market = await client.estimateFeesPerGas()
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, 'fee read for a stuck transaction')
  }
  // Underpriced: it cannot enter the next block at today's base fee.
  if (original.maxFeePerGas >= baseFee) return undefined
  const priority = max(bump(original.maxPriorityFeePerGas), market.maxPriorityFeePerGas)
  const wanted = max(bump(original.maxFeePerGas), 2n * baseFee + priority, market.maxFeePerGas)
  const fee = wanted > maxFeePerGas ? maxFeePerGas : wanted
  if (fee < bump(original.maxFeePerGas) || fee < baseFee) {
    log.warn(
      {
        transactionHash: tx.id,
        maxFeePerGas: original.maxFeePerGas.toString(),
        baseFee: baseFee.toString(),
        ceiling: maxFeePerGas.toString(),
      },
      'a stuck transaction cannot be re-priced within the fee ceiling (MAX_FEE_PER_GAS_GWEI); it waits',
    )
    return undefined
  }
  const authorizationList = original.type === 'eip7702' ? original.authorizationList : undefined
  if (original.type === 'eip7702' && authorizationList?.length !== 1) return undefined
  const rawTransaction = await account.signTransaction({
    chainId: viemChain.id,
    ...(authorizationList ? { type: 'eip7702' as const, authorizationList } : { type: 'eip1559' as const }),
    to: original.to!,
    data: original.data ?? '0x',
    value: original.value ?? 0n,
    gas: original.gas!,
    nonce: original.nonce!,
    maxFeePerGas: fee,
    // biome-ignore lint/complexity/useMathMinMax: bigints
    maxPriorityFeePerGas: priority > fee ? fee : priority,
  })
  return {
    tx: evmSignedExecution.from({ relayer: account.address, txNonce: original.nonce!, rawTransaction }),
    detail: `re-priced at relayer nonce ${original.nonce}: max fee ${original.maxFeePerGas} → ${fee} wei per gas (base fee ${baseFee})`,
    async broadcast() {
      // Replayed before simulations in place of the transaction it re-prices (the same call at that nonce).
      relayers?.sentElsewhere(account.address, {
        nonce: original.nonce!,
        hash: keccak256(rawTransaction),
        raw: rawTransaction,
      })
      try {
        await broadcastRaw(client, rawTransaction)
      } catch (err) {
        throw classifyRpcError(err, chain.chainId, 'broadcast of a re-priced transaction')
      }
    },
  }
}
