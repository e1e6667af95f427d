// What a Solana payment may make the facilitator pay. In x402's exact SVM scheme the payer writes
// the transaction, compute budget included, and the facilitator signs it as fee payer: the fee is
// 5,000 lamports per signature plus the priority fee, ceil(unit limit × unit price / 10^6), and it
// is paid whether the transfer succeeds or fails on chain. So the facilitator refuses, before it
// signs anything, a transaction asking more units, a higher price or more signatures than these.
import { getBase58Decoder, getCompiledTransactionMessageDecoder } from '@solana/kit'
import { decodeTransactionFromPayload } from '@x402/svm'
import { defaultSolanaMaxPriorityFeeMicroLamports } from '../config/paymentsConfig.ts'

// The default lives with the setting (config/paymentsConfig.ts), which says why.
export { defaultSolanaMaxPriorityFeeMicroLamports }

/**
 * Compute units one x402 payment (SetComputeUnitLimit, SetComputeUnitPrice, TransferChecked, a
 * 32-byte memo) consumed on the LiteSVM devnet: 692 (150 + 150 + 105 + 287), measured by
 * simulating @x402/svm's own client transaction (test/payments/facilitatorFees.test.ts checks it).
 */
export const svmPaymentComputeUnits = 692

/**
 * The most compute units a payment may request: x402's own client always requests 20,000 (its
 * DEFAULT_COMPUTE_UNIT_LIMIT, not configurable), more than twice the 692 measured (1,384), and
 * also above twice what the SPL Token program's TransferChecked takes on mainnet today (~6,200
 * units with the memo: ~13,000). A lower ceiling would refuse every payment made by the
 * unmodified x402 client, so the ceiling is the larger of the two: 20,000.
 */
export const svmMaxComputeUnits = Math.max(2 * svmPaymentComputeUnits, 20_000)

/** The payer's signature and the facilitator's: every further one is 5,000 lamports the facilitator pays. */
export const svmMaxRequiredSignatures = 2

/** Solana's base fee per signature, in lamports. */
export const lamportsPerSignature = 5_000n

export type SvmFeeLimits = {
  maxComputeUnits: number
  maxPriorityFeeMicroLamports: number
  maxRequiredSignatures: number
}

/** The limits with the configured price ceiling. */
export function svmFeeLimitsOf(maxPriorityFeeMicroLamports = defaultSolanaMaxPriorityFeeMicroLamports): SvmFeeLimits {
  return {
    maxComputeUnits: svmMaxComputeUnits,
    maxPriorityFeeMicroLamports,
    maxRequiredSignatures: svmMaxRequiredSignatures,
  }
}

/** The most one payment within the limits makes the facilitator pay, in lamports, whether it lands or fails. */
export function maxSvmFeeLamports(limits: SvmFeeLimits): bigint {
  return (
    lamportsPerSignature * BigInt(limits.maxRequiredSignatures) +
    ceilDiv(BigInt(limits.maxComputeUnits) * BigInt(limits.maxPriorityFeeMicroLamports), 1_000_000n)
  )
}

export type SvmFee = {
  /** Signatures the transaction requires. */
  signatures: number
  /** SetComputeUnitLimit's units; undefined when the transaction has none. */
  computeUnits: number | undefined
  /** SetComputeUnitPrice's micro-lamports per unit (0 without one). */
  microLamports: bigint
  /** What the fee payer pays for it, landed or failed, in lamports. */
  lamports: bigint
  /** The fee payer's signature when it is there: the transaction's id. */
  signature: string | undefined
}

const computeBudgetProgram = 'ComputeBudget111111111111111111111111111111'

/** The fee a wire transaction (base64) makes its fee payer pay, read from its message; undefined when it cannot be decoded. */
export function svmFeeOf(transaction: string): SvmFee | undefined {
  let message: CompiledMessage
  let signatures: Record<string, Uint8Array | null>
  try {
    const decoded = decodeTransactionFromPayload({ transaction })
    signatures = decoded.signatures as Record<string, Uint8Array | null>
    message = getCompiledTransactionMessageDecoder().decode(
      Uint8Array.from(decoded.messageBytes),
    ) as unknown as CompiledMessage
  } catch {
    return undefined
  }
  let computeUnits: number | undefined
  let microLamports = 0n
  for (const instruction of message.instructions ?? []) {
    if (message.staticAccounts[instruction.programAddressIndex] !== computeBudgetProgram) continue
    const data = instruction.data
    if (!data || data.length === 0) continue
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
    // Solana refuses a transaction with two of one kind; the largest is kept here all the same.
    if (data[0] === 2 && data.length >= 5) computeUnits = Math.max(computeUnits ?? 0, view.getUint32(1, true))
    if (data[0] === 3 && data.length >= 9) microLamports = bigMax(microLamports, view.getBigUint64(1, true))
  }
  const count = message.header.numSignerAccounts
  const feePayer = message.staticAccounts[0]
  const feePayerSignature = feePayer ? signatures[feePayer] : undefined
  // Without a unit limit Solana grants 200,000 units per instruction (at most 1,400,000).
  const units = computeUnits ?? Math.min(200_000 * (message.instructions?.length ?? 0), 1_400_000)
  return {
    signatures: count,
    computeUnits,
    microLamports,
    lamports: lamportsPerSignature * BigInt(count) + ceilDiv(BigInt(units) * microLamports, 1_000_000n),
    signature: feePayerSignature ? getBase58Decoder().decode(feePayerSignature) : undefined,
  }
}

/**
 * Why the transaction's fee is above the limits: x402's own invalid reason (the one its scheme
 * gives for the same refusal) and a message with the numbers; undefined when it is within them or
 * is no transaction at all (x402's own checks refuse that).
 */
export function svmFeeProblem(
  transaction: string,
  limits: SvmFeeLimits,
): { reason: string; message: string } | undefined {
  const fee = svmFeeOf(transaction)
  if (!fee) return undefined
  if (fee.computeUnits === undefined)
    return {
      reason: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
      message: 'the transaction sets no compute unit limit',
    }
  if (fee.computeUnits > limits.maxComputeUnits)
    return {
      reason: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
      message: `${fee.computeUnits} compute units requested, at most ${limits.maxComputeUnits}`,
    }
  if (fee.microLamports > BigInt(limits.maxPriorityFeeMicroLamports))
    return {
      reason: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
      message: `${fee.microLamports} micro-lamports per compute unit, at most ${limits.maxPriorityFeeMicroLamports}`,
    }
  if (fee.signatures > limits.maxRequiredSignatures)
    return {
      reason: 'invalid_exact_svm_payload_excessive_signers',
      message: `${fee.signatures} signatures required, at most ${limits.maxRequiredSignatures}`,
    }
  return undefined
}

type CompiledMessage = {
  header: { numSignerAccounts: number }
  staticAccounts: string[]
  instructions?: { programAddressIndex: number; data?: Uint8Array }[]
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b
}

function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}
