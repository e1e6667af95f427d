// An expired, unlanded transaction signed again: the same instructions (the Ed25519 one carries
// the sender's signature of the intent hash), a fresh blockhash, the relayer's new signature.
// Nothing before the blockhash expired: the old one may still land.
import {
  decompileTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import type { ReconcileRequest, Replacement, SignedExecution } from '../../../ports/chainAdapter.ts'
import type { SolanaContext, SolanaTransactionDetails } from '../solanaContext.ts'
import { blockHeight } from './blockHeight.ts'
import { broadcastTransaction } from './broadcastTransaction.ts'
import { latestBlockhash } from './latestBlockhash.ts'

export async function replacement(ctx: SolanaContext, tx: ReconcileRequest): Promise<Replacement | undefined> {
  const { relayer } = ctx
  if (!relayer) return undefined
  const lastValid = BigInt((tx.details as SolanaTransactionDetails).lastValidBlockHeight)
  if ((await blockHeight(ctx)) <= lastValid) return undefined
  const old = getTransactionDecoder().decode(getBase64Encoder().encode(tx.bytes))
  const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(old.messageBytes))
  const latest = await latestBlockhash(ctx)
  const payer = await relayer.signer
  const transaction = await signTransactionMessageWithSigners(
    pipe(
      message,
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    ),
  )
  const wire = getBase64EncodedWireTransaction(transaction)
  const details: SolanaTransactionDetails = { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight.toString() }
  const signed: SignedExecution = { id: getSignatureFromTransaction(transaction), bytes: wire, relayer: relayer.address, details }
  return {
    tx: signed,
    detail: `blockhash of ${tx.id} expired unmined; the same instructions re-signed with blockhash ${latest.blockhash}`,
    broadcast: () => broadcastTransaction(ctx, wire),
  }
}
