// The confirmed latest blockhash and the block height up to which a transaction using it may land.
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

export async function latestBlockhash(ctx: SolanaContext) {
  const { value } = await callSolanaRpc(ctx, 'getLatestBlockhash', 'blockhash request', (rpc, abortSignal) =>
    rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal }),
  )
  return value
}
