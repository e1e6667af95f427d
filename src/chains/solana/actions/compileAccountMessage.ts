// Account mode's transaction message, compiled: the relayer as fee payer, the blockhash, the
// instructions (compute budget, then execute_as_signer). These bytes are what the agent signs and
// what the relayer co-signs, unchanged.
import {
  type Address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import type { latestBlockhash } from './latestBlockhash.ts'

export function compileAccountMessage(
  feePayer: Address,
  instructions: readonly Instruction[],
  lifetime: Awaited<ReturnType<typeof latestBlockhash>>,
): Uint8Array {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  return Uint8Array.from(compileTransaction(message).messageBytes)
}
