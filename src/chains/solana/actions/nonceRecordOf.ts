// The nonce record of an intent's sender and nonce, as the program wrote it, if any.
import type { Address } from '@solana/kit'
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

export async function nonceRecordOf(ctx: SolanaContext, intent: Intent) {
  const address = await ctx.program.nonceAddress(intent.sender as Address, intent.nonce)
  const { value } = await callSolanaRpc(ctx, 'getAccountInfo', 'nonce record lookup', (rpc, abortSignal) =>
    rpc.getAccountInfo(address, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal }),
  )
  if (!value || value.owner !== ctx.chain.programId) return undefined
  return ctx.program.decodeNonceRecord(Buffer.from(value.data[0], 'base64'))
}
