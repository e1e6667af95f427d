// Validate: simulates the program's validate instruction (the recent blockhash replaced by the
// node) and reads the one-byte ERC-1066 status from its return data; with a signature, checks whose it is.
import type { Address } from '@solana/kit'
import type { Hex } from 'viem'
import { GatewayError } from '../../../errors/gatewayError.ts'
import { InputError } from '../../../errors/inputError.ts'
import type { Intent } from '../../../ports/intent.ts'
import { isSuccessStatus, Status } from '../../../status/statusCodes.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { assertAvailable } from './assertAvailable.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'
import { decodeSimulationError } from './decodeSimulationError.ts'
import { draftTransaction } from './draftTransaction.ts'
import { signerOf } from './signerOf.ts'

/** `asSigner`: account mode's validate_as_signer (the sender's own account in the vault's place). */
export async function validateIntent(ctx: SolanaContext, intent: Intent, { asSigner = false } = {}): Promise<number> {
  assertAvailable(ctx)
  const { chain } = ctx
  const what = `simulation of the ${asSigner ? 'validate_as_signer' : 'validate'} instruction of program ${chain.programId}`
  const instruction = asSigner
    ? await ctx.program.validateAsSigner(intent, chain.config)
    : await ctx.program.validate(intent, chain.config)
  const wire = draftTransaction(ctx.simulationFeePayer ?? (intent.sender as Address), [instruction])
  const { value } = await callSolanaRpc(ctx, 'simulateTransaction', what, (rpc, abortSignal) =>
    rpc
      .simulateTransaction(wire, {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: true,
        commitment: 'confirmed',
      })
      .send({ abortSignal }),
  )
  if (value.err) throw decodeSimulationError(ctx, value.err, what)
  const data = value.returnData
  if (!data || data.programId !== chain.programId) {
    throw new GatewayError(`The chain rejected the ${what}`, {
      code: 'CHAIN_CALL_FAILED',
      details: 'it returned no status: is this the Intent Gateway program?',
    })
  }
  const bytes = Buffer.from(data.data[0], 'base64')
  if (bytes.length !== 1)
    throw new GatewayError(`The chain rejected the ${what}`, {
      code: 'CHAIN_CALL_FAILED',
      details: `it returned ${bytes.length} bytes instead of a one-byte status`,
    })
  return bytes[0]!
}

/**
 * Validate with the signature the execute would carry (docs/api-contract.md §6): the program's
 * status, then, when it allows the intent, whose signature it is: the sender's or a delegate's of
 * the policy, else 0xE4. Without a signature, the status alone.
 */
export async function validateSigned(ctx: SolanaContext, intent: Intent, signature: Hex | undefined): Promise<number> {
  if (signature === undefined) return validateIntent(ctx, intent)
  const signatureBytes = Uint8Array.from(Buffer.from(signature.slice(2), 'hex'))
  if (signatureBytes.length !== 64) {
    throw new InputError('Invalid signature', {
      errors: [
        {
          field: 'signature',
          message: `must be a 64-byte Ed25519 signature on Solana (0x + 128 hex digits); it has ${signatureBytes.length} bytes`,
        },
      ],
    })
  }
  const status = await validateIntent(ctx, intent)
  if (!isSuccessStatus(status)) return status
  const message = Uint8Array.from(Buffer.from(ctx.runtime.hashIntent(intent).slice(2), 'hex'))
  return (await signerOf(ctx, intent, message, signatureBytes)) ? status : Status.UNAUTHORIZED
}
