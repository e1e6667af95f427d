// Sends signed bytes; a node that already has them counts as accepted. The node's refusal (its
// preflight) is thrown as a GatewayError carrying the intent's status where the program gave one.
import {
  type Base64EncodedWireTransaction,
  isSolanaError,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
} from '@solana/kit'
import { GatewayError } from '../../../errors/gatewayError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { decodeSolanaFailure } from '../decodeSolanaFailure.ts'
import { programErrors } from '../intentGatewayProgram.ts'
import { signatureInstructionOf } from '../signatureInstructionOf.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

export async function broadcastTransaction(ctx: SolanaContext, wire: string): Promise<void> {
  try {
    await callSolanaRpc(ctx, 'sendTransaction', 'broadcast of the execute transaction', (rpc, abortSignal) =>
      rpc
        .sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' })
        .send({ abortSignal }),
    )
  } catch (err) {
    const cause = (err as GatewayError).cause
    if (!isSolanaError(cause, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) throw err
    const inner = cause.cause
    if (isSolanaError(inner, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)) return
    const rpcErr = isSolanaError(inner, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)
      ? { InstructionError: [inner.context.index, { Custom: inner.context.code }] }
      : inner instanceof Error && typeof (inner as { context?: { index?: number } }).context?.index === 'number'
        ? { InstructionError: [(inner as { context: { index: number } }).context.index, inner.message] }
        : inner instanceof Error
          ? inner.message
          : 'refused'
    const failure = decodeSolanaFailure(rpcErr, cause.context.logs, ctx.chain.programId, signatureInstructionOf(wire))
    throw new GatewayError('The chain refused the execute transaction', {
      code: 'CHAIN_CALL_FAILED',
      status:
        failure.kind === 'status'
          ? failure.status
          : failure.kind === 'target'
            ? Status.TRANSFER_FAILED
            : Status.GATEWAY_FAILURE,
      details: failure.detail ?? programErrors[failure.kind === 'status' ? failure.status : -1],
      cause,
    })
  }
}
