// The confirmed block height: what a blockhash's lastValidBlockHeight is compared with.
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

export async function blockHeight(ctx: SolanaContext): Promise<bigint> {
  return BigInt(
    await callSolanaRpc(ctx, 'getBlockHeight', 'block height request', (rpc, abortSignal) =>
      rpc.getBlockHeight({ commitment: 'confirmed' }).send({ abortSignal }),
    ),
  )
}
