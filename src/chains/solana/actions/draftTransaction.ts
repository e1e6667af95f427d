// An unsigned transaction for a simulation that replaces its blockhash and checks no signature:
// what validate simulates, and the draft that measures an execute's compute units.
import {
  type Address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'

/** Any blockhash will do: the node replaces it (replaceRecentBlockhash). */
const placeholderBlockhash = { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 0n }

export function draftTransaction(feePayer: Address, instructions: readonly Instruction[]) {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(placeholderBlockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  return getBase64EncodedWireTransaction(compileTransaction(message))
}
