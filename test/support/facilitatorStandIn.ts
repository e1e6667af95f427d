// A remote x402 facilitator for tests: the HTTP protocol @x402/core's HTTPFacilitatorClient speaks
// (GET /supported, POST /verify, POST /settle with { x402Version, paymentPayload,
// paymentRequirements }) over x402's own in-process facilitator settling on anvil. A test can hold
// a settlement before it is sent, or send it and never answer, to crash a gateway around it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Hex } from 'viem'
import { createLogger } from '../../src/logging/createLogger.ts'
import { createFacilitatorClient } from '../../src/payments/createFacilitatorClient.ts'
import { lendEndpointsOf } from './lentEndpoints.ts'

/** `pass`: settle and answer; `hold`: keep the request, send nothing until the test says; `settle-then-hold`: settle on-chain, never answer. */
export type SettleMode = 'pass' | 'hold' | 'settle-then-hold'

type Body = { paymentPayload: never; paymentRequirements: never }

export type FacilitatorStandIn = {
  url: string
  mode: SettleMode
  /** Settlement requests received (whatever became of them). */
  readonly settleRequests: number
  /** Transactions this stand-in settled. */
  readonly settled: string[]
  /** Resolves once a settlement is held (mode `hold`) or was sent and left unanswered (`settle-then-hold`). */
  nextHeld(): Promise<void>
  /** The held settlements: sent now (`settle`) or never (`drop`). */
  releaseHeld(what: 'settle' | 'drop'): Promise<void>
  close(): Promise<void>
}

export async function startFacilitatorStandIn({
  rpcUrl,
  network,
  privateKey,
}: {
  rpcUrl: string
  network: string
  privateKey: Hex
}): Promise<FacilitatorStandIn> {
  const facilitator = createFacilitatorClient({
    config: { kind: 'local', privateKey },
    endpoints: lendEndpointsOf({ [network]: rpcUrl }),
    logger: createLogger({ level: 'silent' }),
    timeoutMs: 10_000,
  })
  let held: Body[] = []
  let heldWaiters: Array<() => void> = []
  const wakeWaiters = () => {
    for (const w of heldWaiters) w()
    heldWaiters = []
  }
  const state = { settleRequests: 0, settled: [] as string[] }
  const open = new Set<ServerResponse>()

  const settle = async (body: Body) => {
    const result = await facilitator.settle(body.paymentPayload, body.paymentRequirements)
    if (result.success) state.settled.push(result.transaction)
    return result
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const reply = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
    if (req.method === 'GET' && req.url === '/supported') return reply(200, await facilitator.getSupported())
    let raw = ''
    for await (const chunk of req) raw += chunk
    const body = JSON.parse(raw) as Body
    if (req.method === 'POST' && req.url === '/verify')
      return reply(200, await facilitator.verify(body.paymentPayload, body.paymentRequirements))
    if (req.method === 'POST' && req.url === '/settle') {
      state.settleRequests++
      if (standIn.mode === 'pass') return reply(200, await settle(body))
      open.add(res)
      if (standIn.mode === 'hold') held.push(body)
      else await settle(body)
      wakeWaiters()
      return // never answered
    }
    return reply(404, { error: 'not found' })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const standIn: FacilitatorStandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode: 'pass',
    get settleRequests() {
      return state.settleRequests
    },
    get settled() {
      return state.settled
    },
    nextHeld: () => new Promise<void>((resolve) => heldWaiters.push(resolve)),
    async releaseHeld(what) {
      const bodies = held
      held = []
      if (what === 'settle') for (const body of bodies) await settle(body)
    },
    async close() {
      for (const res of open) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return standIn
}
