// A transaction's status, believed only as far as the chain's own state bears it out. An endpoint
// can say a transaction confirmed that never landed (a lagging or lying RPC; the fault campaign's
// `solana` phase has one): an execute answered 200 0x11 that never ran is the one outcome the
// gateway must never give. So a success is taken only once the intent's nonce record holds its
// hash, read from the chain's accounts (a separate request from the status): until then the
// status counts as not seen yet, and the watch (or reconciliation) keeps looking. A failure
// writes no record and is taken as it is.
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { nonceRecordOf } from './nonceRecordOf.ts'
import { signatureStatus } from './signatureStatus.ts'

export async function landedStatus(
  ctx: SolanaContext,
  id: string,
  intent: Intent,
): Promise<{ slot: bigint; err: unknown } | undefined> {
  const status = await signatureStatus(ctx, id)
  if (!status || status.err) return status
  const record = await nonceRecordOf(ctx, intent)
  if (record?.state === 'executed' && record.intentHash === ctx.runtime.hashIntent(intent)) return status
  ctx.log.warn(
    { transactionHash: id },
    "the endpoint says the transaction confirmed, but the intent's nonce record is not on chain: not believed yet",
  )
  return undefined
}
