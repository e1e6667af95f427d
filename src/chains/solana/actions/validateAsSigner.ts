// Validate in account mode: the program's validate_as_signer (the sender's own account pays the
// value and the nonce record's rent); with a signature, whether it is the sender's signature of
// the message issued for this intent (0xE4 otherwise; 0xE5 when none is current here).
import { type Address, getPublicKeyFromAddress, type SignatureBytes, verifySignature } from '@solana/kit'
import type { Hex } from 'viem'
import { InputError } from '../../../errors/inputError.ts'
import type { ValidateAnswer } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import { isSuccessStatus, Status } from '../../../status/statusCodes.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { validateIntent } from './validateIntent.ts'

export async function validateAsSigner(
  ctx: SolanaContext,
  intent: Intent,
  signature: Hex | undefined,
): Promise<ValidateAnswer> {
  const signatureBytes = signature === undefined ? undefined : Uint8Array.from(Buffer.from(signature.slice(2), 'hex'))
  if (signatureBytes && signatureBytes.length !== 64) {
    throw new InputError('Invalid signature', {
      errors: [
        {
          field: 'signature',
          message: `must be the sender's 64-byte Ed25519 signature of the transaction message (0x + 128 hex digits); it has ${signatureBytes.length} bytes`,
        },
      ],
    })
  }
  const status = await validateIntent(ctx, intent, { asSigner: true })
  if (!isSuccessStatus(status) || !signatureBytes) return status
  const issued = ctx.issuedMessages.get(ctx.runtime.hashIntent(intent))
  if (!issued) {
    return {
      status: Status.SIGNATURE_REQUIRED,
      detail:
        'no transaction message is current for this intent here: execute it with `mode: "account"` and no signature to get one',
    }
  }
  const verifies = await verifySignature(
    await getPublicKeyFromAddress(intent.sender as Address),
    signatureBytes as SignatureBytes,
    issued.messageBytes,
  )
  return verifies ? status : Status.UNAUTHORIZED
}
