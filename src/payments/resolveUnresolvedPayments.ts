// Resolves reservations that no request of this process holds (a crash left them, a settlement's
// answer was lost, or its confirmation did not come in time: `settlement_pending`), each as its
// family's mechanism says (mechanisms/<family>), over the reads that mechanism built of its networks.
import type { Logger } from 'pino'
import type { PaymentLedger } from '../ports/paymentLedger.ts'
import { mechanismOf } from './mechanisms/mechanisms.ts'
import type { PaymentMechanism, ResolvedPayment } from './mechanisms/paymentMechanism.ts'

export type { ResolvedPayment }

export type ResolveUnresolvedPaymentsParameters = {
  ledger: PaymentLedger
  /** Each mechanism's reads of its networks, as its `createChainReads` built them; a family without any is left unresolved. */
  reads: ReadonlyMap<PaymentMechanism, unknown>
  logger: Logger
  /**
   * The in-process facilitator's account, when it settles here. At start-up, its family's mechanism
   * asks whether a settlement it sent before the crash may still be in the node; when not, an unused
   * payment is released at once: nothing else could settle it. Without it, an unused payment stays
   * reserved until it can no longer land.
   */
  settler?: string | undefined
  /** Reservations a request of this process holds right now: left alone. */
  isInFlight?: ((paymentId: number) => boolean) | undefined
  /** Says when it runs: 'start-up' or 'periodic' (for the records' reasons). */
  when?: 'start-up' | 'periodic'
  /**
   * The payments this process has said it leaves reserved, kept by the caller from pass to pass:
   * each is said once at its level, then at debug (RecoveryContext.leftReserved). Those no longer
   * reserved are dropped from it.
   */
  told?: Set<number> | undefined
}

export async function resolveUnresolvedPayments({
  ledger,
  reads,
  logger,
  settler,
  isInFlight,
  when = 'start-up',
  told = new Set(),
}: ResolveUnresolvedPaymentsParameters): Promise<ResolvedPayment[]> {
  const log = logger.child({ module: 'payments-recovery' })
  const resolved: ResolvedPayment[] = []
  const memo = new Map<string, unknown>()
  const once = <T>(key: string, read: () => T): T => {
    if (!memo.has(key)) memo.set(key, read())
    return memo.get(key) as T
  }
  const reserved = new Set<number>()
  for (const payment of await ledger.unresolved()) {
    reserved.add(payment.id)
    if (isInFlight?.(payment.id)) continue
    const leftReserved = (level: 'info' | 'warn', fields: Record<string, unknown>, message: string) => {
      if (told.has(payment.id)) return log.debug(fields, message)
      told.add(payment.id)
      log[level](fields, message)
    }
    const mechanism = mechanismOf(payment.network)
    if (!mechanism || !reads.has(mechanism)) {
      leftReserved(
        'warn',
        { paymentId: payment.id, network: payment.network },
        'reserved payment left unresolved: no client for its network',
      )
      continue
    }
    const outcome = await mechanism.resolve(payment, {
      ledger,
      log,
      when,
      reads: reads.get(mechanism),
      settler,
      once,
      leftReserved,
    })
    if (outcome) resolved.push(outcome)
  }
  for (const id of told) if (!reserved.has(id) || resolved.some((r) => r.payment.id === id)) told.delete(id)
  if (resolved.length > 0)
    log.info(
      {
        when,
        settled: resolved.filter((r) => r.outcome === 'settled').length,
        released: resolved.filter((r) => r.outcome === 'released').length,
      },
      'reserved payments resolved',
    )
  return resolved
}
