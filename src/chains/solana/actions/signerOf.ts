// Which key made an intent's signature: the sender's, or one of the policy's delegates (read from
// the policy account); undefined if neither.
import { type Address, getPublicKeyFromAddress, type SignatureBytes, verifySignature } from '@solana/kit'
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

export async function signerOf(
  ctx: SolanaContext,
  intent: Intent,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<Address | undefined> {
  const verifies = async (key: Address) =>
    // SignatureBytes is only kit's brand on a Uint8Array: these are the intent's signature bytes as given.
    verifySignature(await getPublicKeyFromAddress(key), signature as SignatureBytes, message)
  if (await verifies(intent.sender as Address)) return intent.sender as Address
  const policyAddress = await ctx.program.policyAddress(intent.sender as Address, intent.policyId)
  const { value } = await callSolanaRpc(ctx, 'getAccountInfo', 'policy lookup', (rpc, abortSignal) =>
    rpc.getAccountInfo(policyAddress, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal }),
  )
  const policy =
    value && value.owner === ctx.chain.programId
      ? ctx.program.decodePolicy(Buffer.from(value.data[0], 'base64'))
      : undefined
  for (const delegate of policy?.delegates ?? []) {
    if (await verifies(delegate)) return delegate
  }
  return undefined
}
