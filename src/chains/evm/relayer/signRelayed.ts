// A relayed transaction signed at its nonce, and the nonce the next one takes.
import type { Hex } from 'viem'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import type { Fees, RelayedTransaction, SendResult } from './relayedTransaction.ts'
import type { RelayerContext } from './relayerContext.ts'

export async function signRelayed({ account, chainId }: RelayerContext, tx: RelayedTransaction, fees: Fees, nonce: number): Promise<Omit<SendResult, 'accepted'> & { rawTransaction: Hex }> {
  const signed = await account.signTransaction({
    chainId,
    type: 'eip1559',
    to: tx.to,
    data: tx.data,
    value: tx.value ?? 0n,
    gas: tx.gas,
    nonce,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  })
  const transaction = evmSignedExecution.from({ relayer: account.address, txNonce: nonce, rawTransaction: signed })
  return { transaction, transactionHash: transaction.id as Hex, txNonce: nonce, rawTransaction: signed }
}

/**
 * Above the node's count, the journal's unsettled transactions, and those signed here and not
 * broadcast yet (perhaps not journaled yet either).
 */
export async function readNonce({ client, account, nonceFloor, refused, outbox }: RelayerContext): Promise<number> {
  const pending = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
  return Math.max(pending, (await nonceFloor?.(refused)) ?? 0, ...outbox.map((s) => s.nonce + 1))
}
