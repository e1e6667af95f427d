// An expired, unlanded transaction signed again: the same instructions (the Ed25519 one carries
// the sender's signature of the intent hash), a fresh blockhash, the compute-unit price raised
// (it did not land at the old one: see raisedComputeUnitPrice), the relayer's new signature.
// Nothing before the blockhash expired: the old one may still land. Never in account mode.
import {
  decompileTransactionMessage,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
} from '@solana/kit'
import type { ReconcileRequest, Replacement } from '../../../ports/chainAdapter.ts'
import { readComputeBudget, setComputeUnitPrice } from '../computeBudget.ts'
import { raisedComputeUnitPrice } from '../priceComputeUnits.ts'
import type { SolanaContext, SolanaTransactionDetails } from '../solanaContext.ts'
import { blockHeight } from './blockHeight.ts'
import { broadcastTransaction } from './broadcastTransaction.ts'
import { latestBlockhash } from './latestBlockhash.ts'
import { recentPriorityFee } from './recentPriorityFee.ts'
import { signExecuteTransaction } from './signExecuteTransaction.ts'
import { writableAccounts } from './writableAccounts.ts'

export async function replacement(ctx: SolanaContext, tx: ReconcileRequest): Promise<Replacement | undefined> {
  const { relayer } = ctx
  if (!relayer) return undefined
  // Account mode: the agent signed this transaction; the gateway never signs another on its behalf.
  if ((tx.details as SolanaTransactionDetails).mode === 'account') return undefined
  const lastValid = BigInt((tx.details as SolanaTransactionDetails).lastValidBlockHeight)
  if ((await blockHeight(ctx)) <= lastValid) return undefined
  const old = getTransactionDecoder().decode(getBase64Encoder().encode(tx.bytes))
  const instructions: Instruction[] = [
    ...decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(old.messageBytes)).instructions,
  ]
  // Records journaled before the gateway set a compute budget have no price to raise: re-signed as they were.
  const at = instructions.findIndex(
    (ix) => readComputeBudget(ix) !== undefined && 'computeUnitPrice' in readComputeBudget(ix)!,
  )
  let priced = ''
  if (at >= 0) {
    const previous = (readComputeBudget(instructions[at]!) as { computeUnitPrice: bigint }).computeUnitPrice
    const market = await recentPriorityFee(ctx, writableAccounts(relayer.address, instructions))
    const price = raisedComputeUnitPrice(previous, market, ctx.maxPriorityFee)
    instructions[at] = setComputeUnitPrice(price)
    priced = `, compute-unit price ${previous} → ${price} micro-lamports`
  }
  const latest = await latestBlockhash(ctx)
  const signed = await signExecuteTransaction(relayer, instructions, latest)
  return {
    tx: signed,
    detail: `blockhash of ${tx.id} expired unmined; the same instructions re-signed with blockhash ${latest.blockhash}${priced}`,
    broadcast: () => broadcastTransaction(ctx, signed.bytes),
  }
}
