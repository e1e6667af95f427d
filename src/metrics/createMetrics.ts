// The gateway's Prometheus metrics, all from this one factory over a registry of its own (never
// prom-client's global one). Every label takes its values from a bounded set: route patterns (never
// the raw URL), HTTP methods, status numbers, ERC-1066 bytes, the configured chains' CAIP-2 ids,
// RPC method names from a fixed list, outcomes and failure kinds. Never an address, hash or id.
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client'
import { ChainUnavailableError } from '../errors/chainUnavailableError.ts'

/** How an RPC call failed: no answer in time, no endpoint reachable, or the node answered with an error (reverts included). */
export type RpcFailureKind = 'timeout' | 'unreachable' | 'node_error'

/** What the chain layer reports of each RPC call; adapters take it optionally. */
export type RpcRecorder = {
  observeRpc(call: { chain: string; method: string; seconds: number; failure?: RpcFailureKind | undefined }): void
  /**
   * An endpoint of a chain found up (it answered) or down (it failed, is set aside, serves another
   * chain, or was refused). `endpoint` is its position in the chain's endpoint list, never its URL.
   */
  observeEndpoint?(endpoint: { chain: string; endpoint: number; up: boolean }): void
  /** A relayer nonce that transactions waited behind was filled: with the relayer's own transaction sent again, or a no-op. */
  observeNonceGapFilled?(gap: { chain: string; filler: 'resent' | 'noop' }): void
  /**
   * One EVM simulation (eth_simulateV1) answered: `asked` calls of executes, after `replayed` of the
   * gateway's own unmined transactions run again before them (§14).
   */
  observeSimulation?(simulation: { chain: string; asked: number; replayed: number }): void
  /**
   * An EVM execution simulated again before its signature, because the simulation it was to be
   * sent on no longer held (§14): it passed again, was refused, or was overtaken too often.
   */
  observeResimulation?(resimulation: { chain: string; outcome: ResimulationOutcome }): void
}

/** What became of an EVM execution simulated again before its signature. */
export type ResimulationOutcome = 'passed' | 'refused' | 'overtaken'

/** Endpoint positions at or above this share the label `other`: a discovered list can be long. */
export const maxEndpointLabels = 16

/**
 * The kind of a failed SDK call (Solana, Sui): its deadline passed (the call's timeout signal
 * fired), no node could be reached (the adapter classified it unavailable), or the node said no.
 */
export function failureKind(classified: unknown, timedOut: boolean): RpcFailureKind {
  if (timedOut) return 'timeout'
  return classified instanceof ChainUnavailableError ? 'unreachable' : 'node_error'
}

export type ExecutionOutcomeLabel = 'mined' | 'reverted' | 'submitted' | 'refused' | 'failed'

export type MetricsSources = {
  /** The journal's unsettled records. */
  journalBacklog: () => Promise<number>
  /** Per chain that has a relayer: its balance in the chain's smallest unit. */
  relayerBalances: readonly { chain: string; read: () => Promise<bigint> }[]
  /** How long a balance read serves scrapes before the node is asked again. */
  balanceCacheMs?: number | undefined
  /** Webhook endpoints whose circuit is open now (webhooks/startWebhookDispatcher.ts): they keep not answering, their events wait. */
  webhookCircuitsOpen?: (() => number) | undefined
}

export type Metrics = {
  registry: Registry
  recordRequest(request: {
    route: string | undefined
    method: string
    httpStatus: number
    erc1066: unknown
    seconds: number
  }): void
  rpc: RpcRecorder &
    Required<
      Pick<RpcRecorder, 'observeEndpoint' | 'observeNonceGapFilled' | 'observeSimulation' | 'observeResimulation'>
    >
  recordExecution(execution: { chain: string; outcome: ExecutionOutcomeLabel }): void
  /** One priced request, by what became of its payment. */
  recordPayment(payment: { chain: string; outcome: PaymentOutcomeLabel }): void
  /** The time from an execution's broadcast to its receipt (mined or reverted), on the chain it ran on. */
  recordReceiptWait(wait: { chain: string; seconds: number }): void
  /** An execute refused by the gateway's standing or budgets, by reason. */
  recordGuardRefusal(refusal: { chain: string; reason: GuardRefusalReason }): void
  /** What the relayer paid for a sent execution (gas × price, the chain's smallest unit), and whose budget it counted against. */
  recordRelayerSpend(spend: { chain: string; amount: number; outOfGas: boolean }): void
  /** Where the scrape-time gauges read from; until called they have no samples. */
  observe(sources: MetricsSources): void
}

/** Why an execute was refused before anything was simulated, signed or paid. */
export type GuardRefusalReason =
  | 'sender_reverts'
  | 'client_reverts'
  | 'target_reverts'
  | 'client_gas_budget'
  | 'relayer_spend_budget'
const guardReasons = new Set<string>([
  'sender_reverts',
  'client_reverts',
  'target_reverts',
  'client_gas_budget',
  'relayer_spend_budget',
])

/** RPC methods and SDK calls the chain layers make; any other name is counted as `other`. */
export const rpcMethods: ReadonlySet<string> = new Set([
  // EVM JSON-RPC
  'eth_call',
  'eth_chainId',
  'eth_blockNumber',
  'eth_getCode',
  'eth_estimateGas',
  'eth_simulateV1',
  'eth_createAccessList',
  'eth_sendRawTransaction',
  'eth_getTransactionReceipt',
  'eth_getTransactionCount',
  'eth_getTransactionByHash',
  'eth_getBalance',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getLogs',
  // Solana RPC
  'simulateTransaction',
  'getGenesisHash',
  'getAccountInfo',
  'getSlot',
  'getBalance',
  'getLatestBlockhash',
  'sendTransaction',
  'getSignatureStatuses',
  'getBlockHeight',
  // Sui SDK calls
  'getObjects',
  'getReferenceGasPrice',
  'listCoins',
  'executeTransaction',
  'getTransaction',
  'getServiceInfo',
])

const httpMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])
const executionOutcomes = new Set<string>(['mined', 'reverted', 'submitted', 'refused', 'failed'])
const failureKinds = new Set<string>(['timeout', 'unreachable', 'node_error'])
const resimulationOutcomes = new Set<string>(['passed', 'refused', 'overtaken'])
export type PaymentOutcomeLabel =
  | 'required'
  | 'refused'
  | 'settled'
  | 'credit'
  | 'released'
  | 'replayed'
  | 'conflict'
  | 'resent'
  | 'reorged'
const paymentOutcomes = new Set<string>([
  'required',
  'refused',
  'settled',
  'credit',
  'released',
  'replayed',
  'conflict',
  'resent',
  'reorged',
])

export function createMetrics({
  registry,
  defaultMetrics = true,
}: {
  registry: Registry
  defaultMetrics?: boolean
}): Metrics {
  if (defaultMetrics) collectDefaultMetrics({ register: registry })

  const requests = new Counter({
    name: 'intent_gateway_http_requests_total',
    help: 'HTTP requests answered, by matched route pattern (unmatched when none), method, HTTP status and ERC-1066 code (as X-ERC1066-Status, e.g. 0x01)',
    labelNames: ['route', 'method', 'http_status', 'erc1066'] as const,
    registers: [registry],
  })
  const requestDuration = new Histogram({
    name: 'intent_gateway_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by route, method, HTTP status and ERC-1066 code',
    labelNames: ['route', 'method', 'http_status', 'erc1066'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const rpcDuration = new Histogram({
    name: 'intent_gateway_chain_rpc_duration_seconds',
    help: 'Duration of chain RPC calls (failed ones included), by CAIP-2 chain id and RPC method or SDK call',
    labelNames: ['chain', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const rpcFailures = new Counter({
    name: 'intent_gateway_chain_rpc_failures_total',
    help: 'Chain RPC calls that failed, by chain, method and kind: timeout, unreachable (no endpoint answered) or node_error (the node answered with an error, reverts included)',
    labelNames: ['chain', 'method', 'kind'] as const,
    registers: [registry],
  })
  const executions = new Counter({
    name: 'intent_gateway_executions_total',
    help: 'Execute requests by chain and outcome: mined, reverted, submitted (sent, no receipt in time), refused (nothing sent) or failed (a fault before or while sending)',
    labelNames: ['chain', 'outcome'] as const,
    registers: [registry],
  })
  const receiptWait = new Histogram({
    name: 'intent_gateway_execution_receipt_seconds',
    help: 'Time from broadcasting an execution to its receipt (mined or reverted), by chain; receipts that arrive after the answer (202) included',
    labelNames: ['chain'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300],
    registers: [registry],
  })
  const endpointUp = new Gauge({
    name: 'intent_gateway_chain_endpoint_up',
    help: `Whether a chain's RPC endpoint answered its last request (1) or failed, is set aside, serves another chain or was refused (0), by chain and the endpoint's position in the chain's list (0, 1, …; other from ${maxEndpointLabels} on), never its URL`,
    labelNames: ['chain', 'endpoint'] as const,
    registers: [registry],
  })
  const nonceGapsFilled = new Counter({
    name: 'intent_gateway_relayer_nonce_gaps_filled_total',
    help: "Relayer nonces that the relayer's own later transactions waited behind (after a reorg or a lost broadcast) and that the gateway filled, by chain and filler: resent (the relayer's own transaction at that nonce, byte for byte) or noop (a zero-value transfer to itself)",
    labelNames: ['chain', 'filler'] as const,
    registers: [registry],
  })
  const simulatedCalls = new Counter({
    name: 'intent_gateway_simulated_calls_total',
    help: "Calls the gateway's EVM simulations (eth_simulateV1) ran at the node, by chain and kind: asked (an execute's own call, or the settlement run before it) or replayed (the gateway's own unmined transactions, run again before them so that each execute is judged after them)",
    labelNames: ['chain', 'kind'] as const,
    registers: [registry],
  })
  const resimulations = new Counter({
    name: 'intent_gateway_execution_resimulations_total',
    help: "EVM executions simulated again right before their signature, because the simulation they were to be sent on no longer held (a call simulated before them in their batch was not sent, another execution was signed since, or their x402 settlement came between), by chain and outcome: passed (sent on the new simulation), refused (the chain's state now refuses it: nothing sent) or overtaken (simulated again too often: 503, nothing sent)",
    labelNames: ['chain', 'outcome'] as const,
    registers: [registry],
  })
  const guardRefusals = new Counter({
    name: 'intent_gateway_execute_refusals_total',
    help: "Executes refused before anything was simulated, signed or paid, by chain and reason: sender_reverts, client_reverts, target_reverts (standing after on-chain reverts; 429), client_gas_budget (an API key's or payer's gas budget spent; 429), relayer_spend_budget (the chain's relayer spend budget spent; 503)",
    labelNames: ['chain', 'reason'] as const,
    registers: [registry],
  })
  const relayerSpend = new Counter({
    name: 'intent_gateway_relayer_spend_total',
    help: "What the relayer paid for executions it sent (gas used × effective gas price, in the chain's smallest unit: wei on EVM), by chain and whether it ran out of the gas limit the gateway chose (out_of_gas: the gateway's fault, charged to no client)",
    labelNames: ['chain', 'out_of_gas'] as const,
    registers: [registry],
  })
  const payments = new Counter({
    name: 'intent_gateway_payments_total',
    help: 'x402 payments on priced requests by chain and outcome: required (402 offered, nothing sent), refused (a payment that did not verify or settle), settled (charged), credit (paid by an earlier settlement for the same intent), released (verified, not charged: the request was refused), replayed (a payment-identifier retry answered again), conflict; and after the request, an EVM settlement whose block a reorg orphaned: resent (the same signed authorization sent again) or reorged (it could not be: nothing charged)',
    labelNames: ['chain', 'outcome'] as const,
    registers: [registry],
  })

  let sources: MetricsSources | undefined
  new Gauge({
    name: 'intent_gateway_journal_unsettled',
    help: "Journaled executions not settled yet (the reconciler's backlog), read at scrape time",
    registers: [registry],
    async collect() {
      if (sources) this.set(await sources.journalBacklog())
    },
  })
  new Gauge({
    name: 'intent_gateway_webhook_circuits_open',
    help: 'Webhook endpoints whose circuit is open (they kept not answering; their events wait in the outbox and one is tried when it half-opens), read at scrape time',
    registers: [registry],
    collect() {
      this.set(sources?.webhookCircuitsOpen?.() ?? 0)
    },
  })
  const balances = new Map<string, { value: number | undefined; at: number; reading: Promise<void> | undefined }>()
  new Gauge({
    name: 'intent_gateway_relayer_balance',
    help: "The relayer's balance per chain in the chain's smallest unit (wei, lamports, MIST), read at scrape time and cached briefly",
    labelNames: ['chain'] as const,
    registers: [registry],
    async collect() {
      if (!sources) return
      const cacheMs = sources.balanceCacheMs ?? 15_000
      await Promise.all(
        sources.relayerBalances.map(async ({ chain, read }) => {
          let entry = balances.get(chain)
          if (!entry) balances.set(chain, (entry = { value: undefined, at: -Infinity, reading: undefined }))
          const cached = entry
          if (!cached.reading && performance.now() - cached.at >= cacheMs) {
            // One read at a time per chain; a failed read keeps the last value and is retried next time.
            cached.reading = read()
              .then((balance) => {
                cached.value = Number(balance)
                cached.at = performance.now()
              })
              .catch(() => {})
              .finally(() => {
                cached.reading = undefined
              })
          }
          await cached.reading
          if (cached.value !== undefined) this.set({ chain }, cached.value)
        }),
      )
    },
  })

  return {
    registry,
    recordRequest({ route, method, httpStatus, erc1066, seconds }) {
      const labels = {
        route: route ?? 'unmatched',
        method: httpMethods.has(method) ? method : 'other',
        http_status: String(httpStatus),
        // As the X-ERC1066-Status header writes it: 0x and two upper-case hex digits.
        erc1066:
          typeof erc1066 === 'string' && /^0x[0-9a-f]{2}$/i.test(erc1066)
            ? `0x${erc1066.slice(2).toUpperCase()}`
            : 'none',
      }
      requests.inc(labels)
      requestDuration.observe(labels, seconds)
    },
    rpc: {
      observeRpc({ chain, method, seconds, failure }) {
        const labels = { chain, method: rpcMethods.has(method) ? method : 'other' }
        rpcDuration.observe(labels, seconds)
        if (failure) rpcFailures.inc({ ...labels, kind: failureKinds.has(failure) ? failure : 'node_error' })
      },
      observeEndpoint({ chain, endpoint, up }) {
        const position =
          Number.isInteger(endpoint) && endpoint >= 0 && endpoint < maxEndpointLabels ? String(endpoint) : 'other'
        endpointUp.set({ chain, endpoint: position }, up ? 1 : 0)
      },
      observeNonceGapFilled({ chain, filler }) {
        nonceGapsFilled.inc({ chain, filler: filler === 'resent' ? 'resent' : 'noop' })
      },
      observeSimulation({ chain, asked, replayed }) {
        if (asked > 0) simulatedCalls.inc({ chain, kind: 'asked' }, asked)
        if (replayed > 0) simulatedCalls.inc({ chain, kind: 'replayed' }, replayed)
      },
      observeResimulation({ chain, outcome }) {
        resimulations.inc({ chain, outcome: resimulationOutcomes.has(outcome) ? outcome : 'refused' })
      },
    },
    recordReceiptWait({ chain, seconds }) {
      if (Number.isFinite(seconds) && seconds >= 0) receiptWait.observe({ chain }, seconds)
    },
    recordPayment({ chain, outcome }) {
      payments.inc({ chain, outcome: paymentOutcomes.has(outcome) ? outcome : 'refused' })
    },
    recordExecution({ chain, outcome }) {
      executions.inc({ chain, outcome: executionOutcomes.has(outcome) ? outcome : 'failed' })
    },
    recordGuardRefusal({ chain, reason }) {
      guardRefusals.inc({ chain, reason: guardReasons.has(reason) ? reason : 'sender_reverts' })
    },
    recordRelayerSpend({ chain, amount, outOfGas }) {
      if (Number.isFinite(amount) && amount > 0) relayerSpend.inc({ chain, out_of_gas: String(outOfGas) }, amount)
    },
    observe(given) {
      sources = given
    },
  }
}
