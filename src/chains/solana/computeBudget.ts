// The Compute Budget program's two instructions the execute transaction carries in front of its
// own (the program reads only the instruction right before execute, so instructions ahead of the
// Ed25519 one change nothing it checks): the compute-unit limit and the compute-unit price.
import { type Address, address, type Instruction } from '@solana/kit'

export const computeBudgetProgram: Address = address('ComputeBudget111111111111111111111111111111')

/** The most compute units one transaction may ask for. */
export const maxComputeUnitLimit = 1_400_000

const setLimitTag = 2
const setPriceTag = 3

export function setComputeUnitLimit(units: number): Instruction {
  const data = new Uint8Array(5)
  data[0] = setLimitTag
  new DataView(data.buffer).setUint32(1, units, true)
  return { programAddress: computeBudgetProgram, accounts: [], data }
}

/** The price in micro-lamports per compute unit. */
export function setComputeUnitPrice(microLamports: bigint): Instruction {
  const data = new Uint8Array(9)
  data[0] = setPriceTag
  new DataView(data.buffer).setBigUint64(1, microLamports, true)
  return { programAddress: computeBudgetProgram, accounts: [], data }
}

/** What a Compute Budget instruction sets, if it is one of the two above. */
export function readComputeBudget(
  instruction: Pick<Instruction, 'programAddress' | 'data'>,
): { computeUnitLimit: number } | { computeUnitPrice: bigint } | undefined {
  const data = instruction.data
  if (instruction.programAddress !== computeBudgetProgram || !data) return undefined
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  if (data[0] === setLimitTag && data.length === 5) return { computeUnitLimit: view.getUint32(1, true) }
  if (data[0] === setPriceTag && data.length === 9) return { computeUnitPrice: view.getBigUint64(1, true) }
  return undefined
}
