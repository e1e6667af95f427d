// The accounts a transaction write-locks: its fee payer and every writable account meta. What the
// compute-unit price is read for (getRecentPrioritizationFees).
import { type Address, type Instruction, isWritableRole } from '@solana/kit'

export function writableAccounts(feePayer: Address, instructions: readonly Instruction[]): Address[] {
  const writable = instructions.flatMap((ix) =>
    (ix.accounts ?? []).filter((meta) => isWritableRole(meta.role)).map((meta) => meta.address),
  )
  return [...new Set([feePayer, ...writable])]
}
