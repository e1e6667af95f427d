// The second half of x402's `settlement_pending`: a request answered 202 while its payment's
// settlement waited for confirmation is sent once the settlement confirmed (the payment is then a
// credit for its intent, so the request runs without paying again). Each request is taken off its
// payment before it is sent, so one instance of a fleet sends it, once; should the send not run
// the intent (a refusal), the credit stays for the client's own retry.
import type { Logger } from 'pino'
import type { PaymentLedger, PendingRequest } from '../ports/paymentLedger.ts'

export type DeliverPendingRequestsParameters = {
  ledger: PaymentLedger
  deliver(request: PendingRequest): Promise<{ httpStatus: number }>
  logger: Logger
  /** A chain an operator paused (ops/createOpsSwitches.ts): its requests are held, still on their payments, until it resumes. */
  held?: ((chainId: string) => boolean) | undefined
}

/** Sends the requests of credits whose settlement was pending; answers how many were sent. */
export async function deliverPendingRequests({
  ledger,
  deliver,
  logger,
  held,
}: DeliverPendingRequestsParameters): Promise<number> {
  const log = logger.child({ module: 'payments-recovery' })
  let sent = 0
  for (const credit of await ledger.credits()) {
    if (!credit.pendingRequest || held?.(credit.chainId) || !(await ledger.takePendingRequest(credit.id))) continue
    const { httpStatus } = await deliver(credit.pendingRequest)
    sent++
    log.info(
      { paymentId: credit.id, intentHash: credit.intentHash, chainId: credit.chainId, httpStatus },
      'x402 settlement confirmed: the intent it paid for was sent',
    )
  }
  return sent
}
