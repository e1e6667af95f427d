// The execute transaction simulated before anything is journaled or sent: a refusal here sends
// nothing. `estimate`: an unsigned draft (any blockhash, no signature check) that measures the
// compute units; otherwise the signed transaction exactly as it will be sent. Answers the
// refusal as a preflight answer (the program's status, or a target's failure), or the units the
// simulation used; throws for anything else.
import type { Base64EncodedWireTransaction } from '@solana/kit'
import { GatewayError } from '../../../errors/gatewayError.ts'
import type { Preflight } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import { Status } from '../../../status/statusCodes.ts'
import { decodeSolanaFailure } from '../decodeSolanaFailure.ts'
import { signatureInstructionOf } from '../signatureInstructionOf.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'
import { refineStatus } from './refineStatus.ts'

export type SimulatedExecution =
  | { refused: Extract<Preflight, { ok: false }> }
  | { refused: undefined; unitsConsumed: bigint }

/** `asSigner`: account mode's transaction, which carries no Ed25519 instruction. */
export async function simulateExecution(
  ctx: SolanaContext,
  intent: Intent,
  wire: string,
  { estimate = false, asSigner = false } = {},
): Promise<SimulatedExecution> {
  const what = 'simulation of the execute transaction'
  const config = estimate
    ? ({ sigVerify: false, replaceRecentBlockhash: true } as const)
    : ({ sigVerify: true } as const)
  const { value: simulated } = await callSolanaRpc(ctx, 'simulateTransaction', what, (rpc, abortSignal) =>
    rpc
      .simulateTransaction(wire as Base64EncodedWireTransaction, {
        encoding: 'base64',
        commitment: 'confirmed',
        ...config,
      })
      .send({ abortSignal }),
  )
  if (!simulated.err) return { refused: undefined, unitsConsumed: BigInt(simulated.unitsConsumed ?? 0n) }
  const failure = decodeSolanaFailure(
    simulated.err,
    simulated.logs,
    ctx.chain.programId,
    asSigner ? -1 : signatureInstructionOf(wire),
  )
  if (failure.kind === 'status')
    return { refused: { ok: false, status: await refineStatus(ctx, intent, failure.status), detail: failure.detail } }
  if (failure.kind === 'target')
    return { refused: { ok: false, status: Status.TRANSFER_FAILED, detail: failure.detail } }
  throw new GatewayError(`The chain rejected the ${what}`, {
    code: 'CHAIN_CALL_FAILED',
    status: Status.GATEWAY_FAILURE,
    details: failure.detail,
  })
}
