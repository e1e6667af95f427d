// Puts the x402 parts together at start-up: the facilitator (in-process on the endpoints the
// priced chains' runtimes lend, or remote), the ledger in the journal's store, the reservations a crash left
// resolved from the token's authorizationState before any request, the resource server, and a
// periodic pass that resolves reservations no request holds, re-checks EVM settlements until they
// are final (sent again, or `reorged`, when a reorg orphans their block), and uses up the credits
// of executions that became final.

import type { FacilitatorClient } from '@x402/core/server'
import type { Network } from '@x402/core/types'
import type { Logger } from 'pino'
import type { PaymentsConfig } from '../config/paymentsConfig.ts'
import { ConfigError } from '../errors/configError.ts'
import type { ChainEndpoints, LentEndpoints } from '../ports/chainEndpoints.ts'
import type { Journal } from '../ports/journal.ts'
import type { PendingRequest } from '../ports/paymentLedger.ts'
import type { FacilitatorSigners } from '../signers/createFacilitatorSigners.ts'
import { consumeDeliveredCredits } from './consumeDeliveredCredits.ts'
import { createFacilitatorClient } from './createFacilitatorClient.ts'
import { createPayments, type Payments } from './createPayments.ts'
import type { FacilitatorSpend } from './createSettlementSpendWatch.ts'
import { deliverPendingRequests } from './deliverPendingRequests.ts'
import { dollarPriceProblems } from './dollarPriceProblems.ts'
import { paymentMechanisms } from './mechanisms/mechanisms.ts'
import type { PaymentMechanism, SettlementRecheckOutcome } from './mechanisms/paymentMechanism.ts'
import { resolveUnresolvedPayments } from './resolveUnresolvedPayments.ts'
import { svmFeeLimitsOf } from './svmFeeLimits.ts'

export type StartPaymentsParameters = {
  config: PaymentsConfig
  /** The in-process facilitator's keys, opened at start-up (a key in a token or KMS needs them). */
  facilitatorSigners?: FacilitatorSigners | undefined
  /**
   * The endpoints each chain's runtime lends, by chain id (its pool: failover, standing, metrics):
   * a price's network is settled and read through its chain's; one no chain here serves, through none.
   */
  endpoints: ChainEndpoints
  journal: Journal
  rpcTimeoutMs: number
  logger: Logger
  /** How often reservations and credits are looked at again; default 5 s. */
  resolveIntervalMs?: number | undefined
  /** With tracing: wraps the facilitator client so that its verify and settle are spans. */
  traceFacilitator?: (<F extends FacilitatorClient>(client: F) => F) | undefined
  /** How long a settlement broadcast waits for its confirmation before it is `settlement_pending` (default: 3 × rpcTimeoutMs). */
  settlementTimeoutMs?: number | undefined
  /** Sends a request whose settlement was pending, once it confirmed (the composition root: through the app). */
  deliver?: ((request: PendingRequest) => Promise<{ httpStatus: number }>) | undefined
  /** Chains paused by an operator: their pending requests are held until resumed. */
  held?: ((chainId: string) => boolean) | undefined
  /**
   * Called after every settlement the in-process facilitator signed and sent, with its fee read
   * from the chain (EVM: gasUsed × effectiveGasPrice in wei; Solana: the fee in lamports), failed
   * ones included, with `chainId`, the gateway chain it was settled on (a public cluster's id
   * stands for the devnet's chain): the composition root counts it against the payer's GAS_BUDGET_PER_CLIENT on the
   * payment's network and a failure as the payer's revert, never toward RELAYER_SPEND_BUDGET.
   */
  onFacilitatorSpend?: ((spend: FacilitatorSpend & { chainId: string }) => Promise<void> | void) | undefined
  /** How long a payer whose settlement failed on chain is refused further payments (default: an hour; STANDING_WINDOW_MS fits). */
  failedSettlementWindowMs?: number | undefined
  /**
   * How many blocks deep an EVM settlement is final (CONFIRMATIONS, the depth GET /chains
   * publishes as `finality`); until then each pass re-checks its block (default 1).
   */
  confirmations?: number | undefined
  /** Told of each EVM settlement sent again or reorged after a reorg orphaned its block (a metric), with the gateway chain it was settled on. */
  onSettlementReorg?:
    | ((event: { chainId: string; outcome: Extract<SettlementRecheckOutcome, 'resent' | 'reorged'> }) => void)
    | undefined
}

export async function startPayments({
  config,
  facilitatorSigners,
  endpoints: chainEndpoints,
  journal,
  rpcTimeoutMs,
  logger,
  resolveIntervalMs = 5_000,
  traceFacilitator,
  settlementTimeoutMs,
  deliver,
  held,
  onFacilitatorSpend,
  failedSettlementWindowMs,
  confirmations = 1,
  onSettlementReorg,
}: StartPaymentsParameters): Promise<Payments> {
  const problems = dollarPriceProblems(config.prices)
  if (problems.length > 0) throw new ConfigError(problems)
  const endpoints: Record<Network, LentEndpoints> = {}
  const settledOn = new Map<string, string>()
  for (const routes of Object.values(config.prices)) {
    for (const price of Object.values(routes)) {
      // A public cluster's id standing for the devnet chain is settled on that chain.
      const lent = chainEndpoints(price.settleOn ?? price.network)
      if (lent) endpoints[price.network] = lent
      settledOn.set(price.network, price.settleOn ?? price.network)
    }
  }
  // Each family's reads of its networks (recovery, the re-check), built by its mechanism and handed
  // back to it as they are: what they hold is the family's own.
  const reads = new Map<PaymentMechanism, unknown>(
    paymentMechanisms.map((m) => [
      m,
      m.createChainReads({ endpointsOf: (network) => endpoints[network as Network], rpcTimeoutMs }),
    ]),
  )
  const ledger = journal.payments
  const client = createFacilitatorClient({
    config: config.facilitator,
    signers: facilitatorSigners,
    endpoints,
    logger,
    timeoutMs: rpcTimeoutMs * 3,
    settlementTimeoutMs: settlementTimeoutMs ?? rpcTimeoutMs * 3,
    svmFeeLimits: svmFeeLimitsOf(config.solanaMaxPriorityFeeMicroLamports),
    onSpend:
      onFacilitatorSpend &&
      ((spend) => onFacilitatorSpend({ ...spend, chainId: settledOn.get(spend.network) ?? spend.network })),
    failedSettlementWindowMs,
  })
  const traced = traceFacilitator ? traceFacilitator(client) : client
  // The in-process facilitator's account (none with a remote facilitator).
  const settler = client.address
  // Each family's re-check of its settlements after a reorg (EVM): what each settlement sent and the block that mined it kept in the ledger.
  const rechecks = paymentMechanisms.flatMap(
    (m) =>
      m.createSettlementRecheck?.({
        facilitator: traced,
        ledger,
        reads: reads.get(m),
        settler,
        signers: facilitatorSigners,
        endpointsOf: (network) => endpoints[network as Network],
        timeoutMs: settlementTimeoutMs ?? rpcTimeoutMs * 3,
        onSpend:
          onFacilitatorSpend &&
          ((spend) => onFacilitatorSpend({ ...spend, chainId: settledOn.get(spend.network) ?? spend.network })),
        logger,
      }) ?? [],
  )
  const facilitator = rechecks.reduce((settling, recheck) => recheck.keep(settling), traced)
  // A node that cannot be asked now leaves the reservations for the next start; they stay
  // reserved meanwhile, so the authorizations they hold pay for nothing else.
  // A settlement the crash may have left in the node (the in-process facilitator's account), as its family tells.
  // The reservations this process has said it leaves reserved: said once, then at debug at each pass.
  const told = new Set<number>()
  const resolved = await resolveUnresolvedPayments({ ledger, reads, logger, settler, told }).catch((err: unknown) => {
    logger.warn(
      { err },
      'x402 reservations left by the last run could not be resolved now (the chain did not answer); they stay reserved until the next start',
    )
    return []
  })
  if (resolved.length > 0)
    logger.info(
      {
        settled: resolved.filter((r) => r.outcome === 'settled').length,
        released: resolved.filter((r) => r.outcome === 'released').length,
      },
      'x402 reservations left by the last run resolved',
    )
  const payments = createPayments({ config, facilitator, ledger, logger })

  // A payment buys one attempt: an execution mined and final, whether it ran or reverted, uses it up.
  const isDelivered = async ({
    route,
    chainId,
    intentHash,
  }: {
    route: string
    chainId: string
    intentHash: `0x${string}`
  }) => {
    if (route !== 'execute') return false
    const record = await journal.get(intentHash, chainId)
    return (record?.state === 'mined' || record?.state === 'reverted') && record.final
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  let pass: Promise<void> | undefined
  let stopped = false
  const resolvePass = async () => {
    try {
      await resolveUnresolvedPayments({
        ledger,
        reads,
        logger,
        isInFlight: payments.isInFlight,
        when: 'periodic',
        told,
      })
      for (const recheck of rechecks)
        await recheck.recheck({
          confirmations,
          isInFlight: payments.isInFlight,
          onOutcome: (payment, outcome) => {
            if (outcome === 'resent' || outcome === 'reorged')
              onSettlementReorg?.({ chainId: settledOn.get(payment.network) ?? payment.network, outcome })
          },
        })
      await consumeDeliveredCredits({ ledger, isDelivered, logger })
      if (deliver) await deliverPendingRequests({ ledger, deliver, logger, held })
    } catch (err) {
      logger.warn({ err }, 'x402 payments could not be resolved in this pass; tried again in the next')
    }
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      pass = resolvePass().finally(schedule)
    }, resolveIntervalMs)
    timer.unref()
  }
  schedule()
  return {
    ...payments,
    async close() {
      stopped = true
      clearTimeout(timer)
      await pass
    },
  }
}
