// Checks of an execution the journal holds as settled: is it still in the chain (reorgs), and how
// deep; was the intent executed at all (before the journal's word is given as a 409).
import type { Address, Hex } from 'viem'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import type { ChainAdapter, MinedCheck } from '../../../ports/chainAdapter.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { chainInstance } from './chainInstance.ts'
import type { EvmContext } from './evmContext.ts'
import { receiptOf } from './executionReceipt.ts'

export async function confirmExecuted(
  ctx: EvmContext,
  tx: Parameters<NonNullable<ChainAdapter['confirmExecuted']>>[0],
): Promise<boolean> {
  const { client, chain, log, relayers } = ctx
  try {
    const receipt = await receiptOf(ctx, tx.id as Hex)
    if (receipt && (tx.blockHash === undefined || receipt.blockHash === tx.blockHash)) return true
    const used = await client.readContract({
      address: chain.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'nonceUsed',
      args: [tx.intent.sender as Address, tx.intent.nonce],
    })
    if (!used) {
      log.warn(
        { transactionHash: tx.id, blockNumber: tx.blockNumber?.toString(), blockHash: tx.blockHash },
        'the journal says an intent was executed, but the chain has neither its transaction nor its nonce used (chain reset or reorg); reading the chain instance and the relayer nonce again',
      )
      // Whatever the cache said, the chain moved under us: the relayer's next nonce too.
      await chainInstance(ctx, 0)
      relayers?.resync()
    }
    return used
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, 'check of a journaled execution')
  }
}

export async function checkMined(
  ctx: EvmContext,
  tx: Parameters<NonNullable<ChainAdapter['checkMined']>>[0],
): Promise<MinedCheck> {
  try {
    const receipt = await receiptOf(ctx, tx.id as Hex)
    if (!receipt)
      return {
        kind: 'gone',
        detail: `transaction ${tx.id} is no longer in the chain (its block ${tx.blockNumber ?? '?'} was reorganized away)`,
      }
    if (tx.blockHash !== undefined && receipt.blockHash !== tx.blockHash) {
      return {
        kind: 'gone',
        detail: `block ${tx.blockNumber ?? '?'} (${tx.blockHash}) that held transaction ${tx.id} was reorganized away`,
      }
    }
    const latest = await ctx.client.getBlockNumber({ cacheTime: 0 })
    return { kind: 'present', confirmations: Number(latest - receipt.blockNumber + 1n) }
  } catch (err) {
    throw classifyRpcError(err, ctx.chain.chainId, 'confirmation check of an execution')
  }
}
