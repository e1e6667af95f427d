// A settled payment whose execution was answered before it was final (202 0xF3: CONFIRMATIONS > 1,
// a receipt later than the wait, or `Prefer: respond-async`) stays a credit: the execution may still
// be dropped or undone by a reorg, and the intent may then run again without a second charge. The
// request's own instance uses it up as it sees the execution mined and final (PaidAnswer.deliveredLater);
// what it does not see so (deeper finality, a restart, another instance), the next recovery pass does.
import type { Logger } from 'pino'
import type { PaymentBinding, PaymentLedger } from '../ports/paymentLedger.ts'

export type ConsumeDeliveredCreditsParameters = {
  ledger: PaymentLedger
  /** Whether the paid work of this binding is done for good (execute: its execution is mined and final). */
  isDelivered(binding: PaymentBinding): Promise<boolean>
  logger: Logger
}

/** Marks consumed every credit whose work is now delivered; answers how many. */
export async function consumeDeliveredCredits({
  ledger,
  isDelivered,
  logger,
}: ConsumeDeliveredCreditsParameters): Promise<number> {
  let consumed = 0
  for (const credit of await ledger.credits()) {
    if (!(await isDelivered(credit))) continue
    await ledger.markConsumed(credit.id)
    consumed++
  }
  if (consumed > 0)
    logger.child({ module: 'payments-recovery' }).info({ consumed }, 'credits of executions that became final used up')
  return consumed
}
