// The signed execute transaction simulated exactly as it will be sent: a refusal here sends
// nothing. Returns the refusal as a preflight answer (the program's status, or a target's
// failure), undefined when the simulation succeeded; throws for anything else.
import type { Base64EncodedWireTransaction } from '@solana/kit'
import { GatewayError } from '../../../errors/gatewayError.ts'
import type { Preflight } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import { Status } from '../../../status/statusCodes.ts'
import { decodeSolanaFailure } from '../decodeSolanaFailure.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'
import { refineStatus } from './refineStatus.ts'

export async function simulateExecution(ctx: SolanaContext, intent: Intent, wire: string): Promise<Extract<Preflight, { ok: false }> | undefined> {
  const what = 'simulation of the execute transaction'
  const { value: simulated } = await callSolanaRpc(ctx, 'simulateTransaction', what, (rpc, abortSignal) =>
    rpc.simulateTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', sigVerify: true, commitment: 'confirmed' }).send({ abortSignal }),
  )
  if (!simulated.err) return undefined
  const failure = decodeSolanaFailure(simulated.err, simulated.logs, ctx.chain.programId)
  if (failure.kind === 'status') return { ok: false, status: await refineStatus(ctx, intent, failure.status), detail: failure.detail }
  if (failure.kind === 'target') return { ok: false, status: Status.TRANSFER_FAILED, detail: failure.detail }
  throw new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', status: Status.GATEWAY_FAILURE, details: failure.detail })
}
