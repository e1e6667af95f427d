// Resolves reservations that no request of this process holds (a crash left them, a settlement's
// answer was lost, or its confirmation did not come in time: `settlement_pending`), each as its
// family's mechanism says (mechanisms/<family>: EVM asks the token's authorization, Solana the
// settlement's transaction id).
import type { Logger } from 'pino'
import type { Block, PublicClient } from 'viem'
import type { PaymentLedger } from '../ports/paymentLedger.ts'
import { mechanismOf } from './mechanisms/mechanisms.ts'
import type { ResolvedPayment, SolanaSettlementStatus } from './mechanisms/paymentMechanism.ts'

export type { ResolvedPayment, SolanaSettlementStatus }

export type ResolveUnresolvedPaymentsParameters = {
  ledger: PaymentLedger
  /** A public client for a payment's CAIP-2 network; undefined when the network is not reachable from here. */
  clientFor(network: string): PublicClient | undefined
  logger: Logger
  /** How far back to look for the event that used an authorization. */
  lookbackBlocks?: bigint
  /**
   * Start-up only, in-process facilitator only: whether a settlement sent before the crash may
   * still be waiting in the node (the facilitator's account has unmined transactions). When it
   * answers false, an unused authorization is released at once: nothing else could settle it.
   * Without it, an unused authorization stays reserved until the chain passes its validBefore.
   */
  settlementMayBePending?: ((network: string) => Promise<boolean>) | undefined
  /** Reservations a request of this process holds right now: left alone. */
  isInFlight?: ((paymentId: number) => boolean) | undefined
  /** Says when it runs: 'start-up' or 'periodic' (for the records' reasons). */
  when?: 'start-up' | 'periodic'
  /** A Solana network's answer on a transaction id; undefined when the network is not reachable from here. */
  solanaStatusOf?: ((network: string, signature: string) => Promise<SolanaSettlementStatus>) | undefined
  /** A Solana network's time, unix seconds (past a reservation's validBefore, its settlement can no longer land). */
  solanaNowOf?: ((network: string) => Promise<bigint>) | undefined
  /** Whether a blockhash has expired on a Solana network by its finalized bank: no transaction with it can land from then on. */
  solanaBlockhashExpiredOf?: ((network: string, blockhash: string) => Promise<boolean>) | undefined
}

export async function resolveUnresolvedPayments({
  ledger,
  clientFor,
  logger,
  lookbackBlocks = 100_000n,
  settlementMayBePending,
  isInFlight,
  when = 'start-up',
  solanaStatusOf,
  solanaNowOf = async () => BigInt(Math.floor(Date.now() / 1000)),
  solanaBlockhashExpiredOf,
}: ResolveUnresolvedPaymentsParameters): Promise<ResolvedPayment[]> {
  const log = logger.child({ module: 'payments-recovery' })
  const resolved: ResolvedPayment[] = []
  const heads = new Map<string, Promise<Block<bigint, false, 'latest'>>>()
  const context = {
    ledger,
    log,
    when,
    clientFor,
    heads,
    lookbackBlocks,
    settlementMayBePending,
    solanaStatusOf,
    solanaNowOf,
    solanaBlockhashExpiredOf,
  }
  for (const payment of await ledger.unresolved()) {
    if (isInFlight?.(payment.id)) continue
    const mechanism = mechanismOf(payment.network)
    if (!mechanism) {
      log.warn(
        { paymentId: payment.id, network: payment.network },
        'reserved payment left unresolved: no client for its network',
      )
      continue
    }
    const outcome = await mechanism.resolve(payment, context)
    if (outcome) resolved.push(outcome)
  }
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
