// Why the simulation of validate failed, as a 502 whose details a reader can act on (a program
// error by name, a fee payer without SOL, a program missing at the configured id).
import { GatewayError } from '../../../errors/gatewayError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { programErrors } from '../intentGatewayProgram.ts'
import type { SolanaContext } from '../solanaContext.ts'

export function decodeSimulationError(ctx: SolanaContext, err: unknown, what: string): GatewayError {
  const { simulationFeePayer, chain } = ctx
  const shape = err as string | { InstructionError?: [number, unknown] }
  let details: string
  if (typeof shape === 'object' && shape && Array.isArray(shape.InstructionError)) {
    const inner = shape.InstructionError[1] as string | { Custom?: number | bigint }
    if (typeof inner === 'object' && inner && inner.Custom !== undefined) {
      const code = Number(inner.Custom)
      details = `program error ${code}: ${programErrors[code] ?? 'unknown'}`
    } else {
      details = `instruction error ${typeof inner === 'string' ? inner : JSON.stringify(inner)}`
    }
  } else if (shape === 'AccountNotFound') {
    details = simulationFeePayer
      ? `the simulation fee payer ${simulationFeePayer} holds no SOL`
      : 'the sender holds no SOL to name as the simulation fee payer: configure a funded simulation fee payer'
  } else if (shape === 'ProgramAccountNotFound' || shape === 'InvalidProgramForExecution') {
    details = `${String(shape)}: is the program deployed at ${chain.programId} on this chain?`
  } else {
    details =
      typeof shape === 'string' ? shape : JSON.stringify(shape, (_, v) => (typeof v === 'bigint' ? Number(v) : v))
  }
  return new GatewayError(`The chain rejected the ${what}`, {
    code: 'CHAIN_CALL_FAILED',
    status: Status.GATEWAY_FAILURE,
    details,
  })
}
