// NONCE_USED of a nonce its sender cancelled is REVOKED, as on EVM.
import type { Intent } from '../../../ports/intent.ts'
import { Status } from '../../../status/statusCodes.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { nonceRecordOf } from './nonceRecordOf.ts'

export async function refineStatus(ctx: SolanaContext, intent: Intent, status: number): Promise<number> {
  if (status !== Status.NONCE_USED) return status
  const record = await nonceRecordOf(ctx, intent).catch(() => undefined)
  return record?.state === 'cancelled' ? Status.REVOKED : status
}
