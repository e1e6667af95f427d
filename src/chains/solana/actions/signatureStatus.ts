// A signature's status once it is at least confirmed; undefined while unknown or only processed.
import { signature as toSignature } from '@solana/kit'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

export async function signatureStatus(ctx: SolanaContext, id: string) {
  const { value } = await callSolanaRpc(ctx, 'getSignatureStatuses', 'signature status request', (rpc, abortSignal) =>
    rpc.getSignatureStatuses([toSignature(id)], { searchTransactionHistory: true }).send({ abortSignal }),
  )
  const status = value[0]
  return status?.confirmationStatus && status.confirmationStatus !== 'processed' ? status : undefined
}
