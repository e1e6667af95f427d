// What a failed Solana transaction (or its simulation) means for an intent: one of the program's
// refusals (Custom(status): validate's statuses and 0xE4), the Ed25519 program refusing the
// signature, the target failing, or a fault. The program's own Custom(n) is told apart from a
// target's by the logs: the first "Program <id> failed" line names the program that failed first
// (a target that fails with Custom(0x22) must not pass for the gateway's NONCE_USED).
import { programErrors, programStatuses } from './intentGatewayProgram.ts'

export type SolanaFailure =
  /** The program refused the intent with this status: nothing ran. */
  | { kind: 'status'; status: number; detail: string | undefined }
  /** The target instruction failed (the whole transaction with it). */
  | { kind: 'target'; detail: string }
  /** Anything else: a program error, a runtime refusal of the transaction. */
  | { kind: 'error'; detail: string }

const failedLine = /^Program (\w+) failed: (.*)$/

/** `signatureInstruction`: the position of the Ed25519 instruction in the transaction (see signatureInstructionOf). */
export function decodeSolanaFailure(
  err: unknown,
  logs: readonly string[] | null | undefined,
  programId: string,
  signatureInstruction = 0,
): SolanaFailure {
  const shape = err as string | { InstructionError?: [number | bigint, unknown] }
  if (typeof shape !== 'object' || !shape || !Array.isArray(shape.InstructionError)) {
    return {
      kind: 'error',
      detail:
        typeof shape === 'string' ? shape : JSON.stringify(shape, (_, v) => (typeof v === 'bigint' ? Number(v) : v)),
    }
  }
  const [index, inner] = shape.InstructionError
  const custom =
    typeof inner === 'object' && inner !== null && 'Custom' in inner
      ? Number((inner as { Custom: number | bigint }).Custom)
      : undefined
  const described =
    custom !== undefined ? `custom program error ${custom}` : typeof inner === 'string' ? inner : JSON.stringify(inner)
  // The transaction is [compute budget…, Ed25519 signature check, execute]: a refusal of the Ed25519 one is the signature's.
  if (Number(index) === signatureInstruction)
    return { kind: 'status', status: 0xe4, detail: `the Ed25519 program refused the signature (${described})` }
  const first = (logs ?? []).map((line) => failedLine.exec(line)).find(Boolean)
  if (first && first[1] !== programId)
    return { kind: 'target', detail: `the target instruction failed: program ${first[1]}: ${first[2]}` }
  if (custom !== undefined && programStatuses.has(custom)) return { kind: 'status', status: custom, detail: undefined }
  if (custom !== undefined)
    return { kind: 'error', detail: `program error ${custom}: ${programErrors[custom] ?? 'unknown'}` }
  return { kind: 'error', detail: `instruction error ${described}` }
}
