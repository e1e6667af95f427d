// Validate: simulates the program's validate instruction (no signature check, the recent
// blockhash replaced by the node) and reads the one-byte ERC-1066 status from its return data.
import type { Address } from '@solana/kit'
import { GatewayError } from '../../../errors/gatewayError.ts'
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { assertAvailable } from './assertAvailable.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'
import { decodeSimulationError } from './decodeSimulationError.ts'
import { draftTransaction } from './draftTransaction.ts'

export async function validateIntent(ctx: SolanaContext, intent: Intent): Promise<number> {
  assertAvailable(ctx)
  const { chain } = ctx
  const what = `simulation of the validate instruction of program ${chain.programId}`
  const instruction = await ctx.program.validate(intent, chain.config)
  const wire = draftTransaction(ctx.simulationFeePayer ?? (intent.sender as Address), [instruction])
  const { value } = await callSolanaRpc(ctx, 'simulateTransaction', what, (rpc, abortSignal) =>
    rpc.simulateTransaction(wire, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: 'confirmed' }).send({ abortSignal }),
  )
  if (value.err) throw decodeSimulationError(ctx, value.err, what)
  const data = value.returnData
  if (!data || data.programId !== chain.programId) {
    throw new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', details: 'it returned no status: is this the Intent Gateway program?' })
  }
  const bytes = Buffer.from(data.data[0], 'base64')
  if (bytes.length !== 1) throw new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', details: `it returned ${bytes.length} bytes instead of a one-byte status` })
  return bytes[0]!
}
