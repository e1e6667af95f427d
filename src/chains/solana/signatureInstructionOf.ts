// Where the Ed25519 instruction sits in a signed execute transaction (base64): after the compute
// budget instructions today, first in transactions journaled before the gateway set a budget.
import {
  decompileTransactionMessage,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
} from '@solana/kit'
import { ed25519Program } from './intentGatewayProgram.ts'

export function signatureInstructionOf(wire: string): number {
  try {
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire))
    const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes))
    const index = message.instructions.findIndex((ix) => ix.programAddress === ed25519Program)
    return Math.max(0, index)
  } catch {
    return 0
  }
}
