// The composition root's payments: with something priced, x402's flow (payments/startPayments.ts,
// its packages loaded only then) wired to the gateway's parts: settlement through the endpoints
// the chains' runtimes lend (their pools: failover, standing, metrics), the facilitator's spend counted as its payer's, a paused chain's sends held,
// and a request whose settlement was pending sent, once it confirms, through the app itself.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { GatewayConfig } from './config/gatewayConfig.ts'
import type { ExecutionGuard } from './intents/createExecutionGuard.ts'
import type { Metrics } from './metrics/createMetrics.ts'
import type { Ops } from './ops/createOps.ts'
import type { Payments } from './payments/createPayments.ts'
import type { ChainEndpoints } from './ports/chainEndpoints.ts'
import type { Journal } from './ports/journal.ts'
import type { FacilitatorSigners } from './signers/createFacilitatorSigners.ts'
import type { Tracing } from './tracing/createTracing.ts'

export type StartGatewayPaymentsParameters = {
  config: GatewayConfig
  facilitatorSigners: FacilitatorSigners | undefined
  /** The endpoints the started chains' runtimes lend, by chain id. */
  chainEndpoints: ChainEndpoints
  journal: Journal
  logger: Logger
  guard: ExecutionGuard
  metrics: Metrics
  ops: Ops | undefined
  tracing: Tracing | undefined
  /** The app a confirmed pending request is sent through: built after payments, so asked for at delivery. */
  app: () => FastifyInstance | undefined
}

/** Undefined when nothing is priced. */
export async function startGatewayPayments({
  config,
  facilitatorSigners,
  chainEndpoints,
  journal,
  logger,
  guard,
  metrics,
  ops,
  tracing,
  app,
}: StartGatewayPaymentsParameters): Promise<Payments | undefined> {
  if (!config.payments) return undefined
  const { startPayments } = await import('./payments/startPayments.ts')
  return startPayments({
    config: config.payments,
    facilitatorSigners,
    endpoints: chainEndpoints,
    journal,
    rpcTimeoutMs: config.rpc.timeoutMs,
    logger,
    resolveIntervalMs: config.execution.reconcileIntervalMs,
    settlementTimeoutMs: config.execution.receiptTimeoutMs,
    deliver: async (request) => {
      const deliverTo = app()
      if (!deliverTo) throw new Error('the app is not built yet')
      const answer = await deliverTo.inject({
        method: request.method,
        url: request.url,
        headers: request.headers,
        payload: request.body as object,
      })
      return { httpStatus: answer.statusCode }
    },
    traceFacilitator: tracing?.traceFacilitator,
    // The pending-settlement resolver holds its sends on a paused chain until it resumes.
    held: ops ? (chainId: string) => ops.switches.pausedOn(chainId) !== undefined : undefined,
    // The facilitator's fee for each settlement, failed ones too, is that payer's spend (its gas budget and standing), never the relayer breaker's.
    onFacilitatorSpend: ({ chainId, payer, fee, failed }) =>
      guard.recordPayerSpend({ chainId, client: `payer:${payer}`, fee, failed }),
    failedSettlementWindowMs: config.limits.windowMs,
    // A settlement is re-checked until as deep as an execution is final (GET /chains' `finality`).
    confirmations: config.execution.confirmations,
    onSettlementReorg: ({ chainId, outcome }) => metrics.recordPayment({ chain: chainId, outcome }),
  })
}
