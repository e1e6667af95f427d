// What a signed Solana transaction costs its fee payer, read from the transaction itself: 5,000
// lamports per signature (the transaction's own and those its Ed25519 and Secp256k1 instructions
// check, as the clusters and LiteSVM charge them) plus the priority fee, the compute-unit limit
// times its price in micro-lamports, rounded up. The fee is the same whether the transaction ran
// or failed, and is known before it lands (the devnet's getTransaction reports it from here).
import {
  decompileTransactionMessage,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
} from '@solana/kit'
import { computeBudgetProgram, maxComputeUnitLimit, readComputeBudget } from './computeBudget.ts'
import { ed25519Program } from './intentGatewayProgram.ts'

export const lamportsPerSignature = 5_000n
const secp256k1Program = 'KeccakSecp256k11111111111111111111111111111'
/** The compute units an instruction gets without a SetComputeUnitLimit. */
const defaultUnitsPerInstruction = 200_000

/** The fee of a signed transaction (base64), in lamports; undefined when it cannot be decoded. */
export function solanaFeeOf(wire: string): bigint | undefined {
  try {
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire))
    const instructions = decompileTransactionMessage(
      getCompiledTransactionMessageDecoder().decode(transaction.messageBytes),
    ).instructions as readonly Instruction[]
    let signatures = BigInt(Object.keys(transaction.signatures).length)
    let limit: number | undefined
    let price = 0n
    for (const ix of instructions) {
      // A signature-verifying precompile's first byte: how many signatures it checks.
      if (
        (ix.programAddress === ed25519Program || ix.programAddress === secp256k1Program) &&
        ix.data &&
        ix.data.length > 0
      )
        signatures += BigInt(ix.data[0]!)
      const budget = readComputeBudget(ix)
      if (budget && 'computeUnitLimit' in budget) limit = budget.computeUnitLimit
      if (budget && 'computeUnitPrice' in budget) price = budget.computeUnitPrice
    }
    const units = BigInt(
      limit ??
        Math.min(
          maxComputeUnitLimit,
          defaultUnitsPerInstruction * instructions.filter((ix) => ix.programAddress !== computeBudgetProgram).length,
        ),
    )
    return signatures * lamportsPerSignature + (units * price + 999_999n) / 1_000_000n
  } catch {
    return undefined
  }
}
