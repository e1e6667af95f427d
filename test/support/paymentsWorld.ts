// A real anvil with DemoDollar, the payments core with the in-process facilitator (or a remote
// URL), and a minimal Fastify app whose one priced route succeeds or refuses on demand: the
// x402 flow tested on its own, before the gateway's execute path is wired to it.

import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch'
import Database from 'better-sqlite3'
import Fastify, { type FastifyInstance } from 'fastify'
import { type Address, type Hex, keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import type { PaymentsConfig, PriceConfig } from '../../src/config/paymentsConfig.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { registerCommonHeaders } from '../../src/http/plugins/commonHeaders.ts'
import { registerErrorHandler } from '../../src/http/plugins/errorHandler.ts'
import { servePaid } from '../../src/http/plugins/payments.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { createFacilitatorClient } from '../../src/payments/createFacilitatorClient.ts'
import { createPayments, type Payments } from '../../src/payments/createPayments.ts'
import type { PaymentLedger } from '../../src/ports/paymentLedger.ts'
import { createSqlitePaymentLedger } from '../../src/store/sqlite/createSqlitePaymentLedger.ts'
import { lendEndpointsOf } from './lentEndpoints.ts'

/** What the test route is asked to do: succeed, or refuse with an HTTP status before settling. */
export type WorkBody = { id: string; refuse?: number }

export type PaidApp = {
  app: FastifyInstance
  url: string
  payments: Payments
  /** Ids whose work was done, in order: the handler's effect. */
  effects: string[]
  /** Runs between the handler's simulation and its settle() call (to empty a balance, say). */
  beforeSettle: (() => Promise<void>) | undefined
  /** The "broadcast" fails after settlement (answers 502): the payment must stay a credit. */
  failAfterSettle: boolean
  logs: string[]
  close(): Promise<void>
}

export const price = 10_000n // 0.01 DUSD

export function priceOf(devnet: Devnet, overrides: Partial<{ amount: string; asset: Address }> = {}): PriceConfig {
  const { payment } = devnet.demo
  return {
    network: `eip155:${devnet.anvil.chainId}`,
    payTo: payment.payTo,
    price: {
      asset: overrides.asset ?? payment.asset,
      amount: overrides.amount ?? String(price),
      extra: { name: payment.name, version: payment.version },
    },
    maxTimeoutSeconds: 300,
  }
}

export function intentHashOf(id: string): Hex {
  return keccak256(stringToHex(id))
}

export async function startPaidApp(params: {
  devnet: Devnet
  ledger: PaymentLedger
  config?: Partial<PaymentsConfig> & { price?: PriceConfig }
  /** The node's URL as the facilitator reaches it (default: the devnet's own; a proxy in front of it). */
  rpcUrl?: string
}): Promise<PaidApp> {
  const { devnet, ledger } = params
  const chainId = `eip155:${devnet.anvil.chainId}`
  const logs: string[] = []
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })
  const config: PaymentsConfig = {
    prices: {
      [chainId]: { execute: params.config?.price ?? priceOf(devnet), validate: priceOf(devnet, { amount: '1000' }) },
    },
    priceApiKeyClients: params.config?.priceApiKeyClients ?? false,
    facilitator: params.config?.facilitator ?? { kind: 'local', privateKey: devnetAccounts.facilitator },
  }
  const facilitator = createFacilitatorClient({
    config: config.facilitator,
    endpoints: lendEndpointsOf({ [chainId]: params.rpcUrl ?? devnet.anvil.rpcUrl }),
    logger,
    timeoutMs: 5_000,
  })
  const payments = createPayments({ config, facilitator, ledger, logger })

  const app = Fastify({ logger: false })
  registerCommonHeaders(app, { describe: () => ({ chainId, chainType: 'evm' }) } as never)
  registerErrorHandler(app)
  const state: PaidApp = {
    app,
    url: '',
    payments,
    effects: [],
    beforeSettle: undefined,
    failAfterSettle: false,
    logs,
    close: () => app.close(),
  }
  // A body without an id cannot be priced: the route answers it 400 itself, never 402.
  app.post<{ Body: WorkBody }>('/work', async (request, reply) => {
    const body = request.body
    if (typeof body.id !== 'string') return reply.code(400).send({ id: '', done: false })
    const id = body.id
    let status = 200
    return servePaid(
      request,
      reply,
      { route: 'execute', chainId, intentHash: intentHashOf(id) },
      {
        payments,
        apiKeyClient: request.headers.authorization === 'Bearer operator-key',
        async work(ticket) {
          const answered = (httpStatus: number, done: boolean, charge?: boolean) => {
            status = httpStatus
            return { value: { id, done }, answer: charge === undefined ? { httpStatus } : { httpStatus, charge } }
          }
          // The "validation and simulation" step: a refusal answers before anything is settled.
          if (body.refuse) return answered(body.refuse, false, false)
          await state.beforeSettle?.()
          const settled = await ticket.settle()
          if (!settled.ok) return answered(402, false)
          if (state.failAfterSettle) return answered(502, false)
          state.effects.push(id) // the "broadcast": only after settlement
          return answered(200, true)
        },
        send: (value) => reply.code(status).send(value),
      },
    )
  })
  // A route with nothing to broadcast (like validate): it never calls settle(), so a success is settled after it.
  app.post<{ Body: WorkBody }>('/check', async (request, reply) => {
    const body = request.body
    let httpStatus = 200
    return servePaid(
      request,
      reply,
      { route: 'validate', chainId, intentHash: intentHashOf(body.id) },
      {
        payments,
        async work() {
          httpStatus = body.refuse ?? 200
          return { value: { id: body.id, checked: !body.refuse }, answer: { httpStatus } }
        },
        send: (value) => reply.code(httpStatus).send(value),
      },
    )
  })
  state.url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/work`
  return state
}

export type PaymentsWorld = {
  devnet: Devnet
  clients: ReturnType<typeof createDevClients>
  ledger: PaymentLedger
  db: Database.Database
  paid: PaidApp
  balanceOf(who: Address): Promise<bigint>
  stop(): Promise<void>
}

export async function startPaymentsWorld(): Promise<PaymentsWorld> {
  const devnet = await startDevnet()
  try {
    const clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const db = new Database(':memory:')
    const ledger = createSqlitePaymentLedger({ db })
    const paid = await startPaidApp({ devnet, ledger })
    return {
      devnet,
      clients,
      ledger,
      db,
      paid,
      balanceOf: (who) =>
        clients.publicClient.readContract({
          address: devnet.contracts.dollar,
          abi: demoDollarArtifact.abi,
          functionName: 'balanceOf',
          args: [who],
        }),
      async stop() {
        await paid.close()
        db.close()
        await devnet.stop()
      },
    }
  } catch (err) {
    await devnet.stop()
    throw err
  }
}

/** The unmodified x402 client for a payer key, allowed to pay in DemoDollar on the devnet. */
export function payingClient(devnet: Devnet, key: Hex = devnetAccounts.payer) {
  const client = new x402Client()
  registerExactEvmScheme(client, { signer: privateKeyToAccount(key) })
  client.setSpendControls({
    allowedAssets: [{ network: `eip155:${devnet.anvil.chainId}`, asset: devnet.demo.payment.asset }],
  })
  return { client, http: new x402HTTPClient(client), fetch: wrapFetchWithPayment(fetch, client) }
}

export function postJson(body: WorkBody, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }
}
