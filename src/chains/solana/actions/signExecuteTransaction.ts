// The execute transaction as the relayer signs it: the instructions, the relayer as fee payer, a
// recent blockhash; its journal details name the blockhash and the compute budget. Refused (422, naming `accounts`) when it would not fit in a Solana packet.
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { InputError } from '../../../errors/inputError.ts'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'
import { readComputeBudget } from '../computeBudget.ts'
import type { SolanaRelayer, SolanaTransactionDetails } from '../solanaContext.ts'
import type { latestBlockhash } from './latestBlockhash.ts'

/** Solana's packet size: a transaction larger than this is never accepted. */
const maxTransactionSize = 1232

export async function signExecuteTransaction(
  relayer: SolanaRelayer,
  instructions: readonly Instruction[],
  lifetime: Awaited<ReturnType<typeof latestBlockhash>>,
): Promise<SignedExecution> {
  const payer = await relayer.signer
  const transaction = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  )
  const wire = getBase64EncodedWireTransaction(transaction)
  const size = Buffer.byteLength(wire, 'base64')
  if (size > maxTransactionSize) {
    throw new InputError('Intent too large for one Solana transaction', {
      errors: [
        {
          field: 'accounts',
          message: `the execute transaction would be ${size} bytes, above Solana's ${maxTransactionSize}: use fewer account metas or shorter data`,
        },
      ],
    })
  }
  const details: SolanaTransactionDetails = {
    blockhash: lifetime.blockhash,
    lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
  }
  for (const instruction of instructions) {
    const budget = readComputeBudget(instruction)
    if (budget && 'computeUnitLimit' in budget) details.computeUnitLimit = String(budget.computeUnitLimit)
    if (budget && 'computeUnitPrice' in budget) details.computeUnitPrice = String(budget.computeUnitPrice)
  }
  return { id: getSignatureFromTransaction(transaction), bytes: wire, relayer: relayer.address, details }
}
