// A JSON-RPC proxy between one gateway and anvil, for the fault campaign: it forwards every request,
// and on demand holds the next request that calls a method (so that the gateway can be killed while
// it waits there), tells when an answer to a method went back (killed right after a broadcast), or
// injects faults: HTTP 500, a timeout (no answer), a connection reset after the node got the request
// (the answer lost), and a lagging endpoint (eth_blockNumber answered some blocks old).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export type FaultKind = 'http500' | 'timeout' | 'reset' | 'lag'

export type Held = {
  methods: string[]
  /** Sends the held request on to the node (its answer goes back as usual). */
  forward(): void
  /** Closes the held request's connection without an answer. */
  drop(): void
}

export type FaultProxy = {
  url: string
  /** Holds the next request calling one of `methods`; resolves when it arrives. */
  hold(methods: string[]): Promise<Held>
  /** Resolves once the next answer to a request calling one of `methods` was written back. */
  afterAnswer(methods: string[]): Promise<void>
  /** From now on, each request (but those in `spare`) meets a fault with probability `rate`; 0 stops. */
  faultRate(rate: number, kinds: FaultKind[], random: () => number): void
  /** Faults injected so far, by kind. */
  faults: Record<FaultKind, number>
  /** Requests seen so far, by method. */
  calls: Record<string, number>
  /**
   * Run before each request calling one of its methods is forwarded (the request waits for it):
   * how a check sees the world as it is when a gateway broadcasts. Undefined: none.
   */
  inspect: { methods: Set<string>; check(body: Buffer): Promise<void> } | undefined
  /** Drops every held request and forgets armed holds. */
  clear(): void
  close(): Promise<void>
}

/** Methods never faulted: the gateway's start-up reads, so that a restart is not what is measured. */
const spare = new Set(['eth_chainId', 'eth_getBlockByNumber_genesis'])
const lagBlocks = 5

export async function startFaultProxy({ target, port = 0 }: { target: string; port?: number }): Promise<FaultProxy> {
  const holds: Array<{ methods: Set<string>; resolve(h: Held): void }> = []
  const answers: Array<{ methods: Set<string>; resolve(): void }> = []
  const held = new Set<Held>()
  const faults: Record<FaultKind, number> = { http500: 0, timeout: 0, reset: 0, lag: 0 }
  const calls: Record<string, number> = {}
  let rate = 0
  let kinds: FaultKind[] = []
  let random = Math.random
  const sockets = new Set<Socket>()

  const forward = async (body: Buffer, res: ServerResponse, methods: string[], fault: FaultKind | undefined) => {
    let text: string
    let status: number
    try {
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      status = answer.status
      text = await answer.text()
    } catch {
      res.socket?.destroy()
      return
    }
    if (fault === 'reset') {
      // The node has the request; the gateway never hears its answer.
      res.socket?.destroy()
      return
    }
    if (fault === 'lag') text = lagged(text, body)
    res.writeHead(status, { 'content-type': 'application/json' }).end(text, () => {
      for (const a of [...answers]) {
        if (methods.some((m) => a.methods.has(m))) {
          answers.splice(answers.indexOf(a), 1)
          a.resolve()
        }
      }
    })
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const methods = methodsOf(body)
      for (const m of methods) calls[m] = (calls[m] ?? 0) + 1
      const inspect = proxy.inspect
      if (inspect && methods.some((m) => inspect.methods.has(m))) {
        void inspect
          .check(body)
          .catch(() => {})
          .then(() => route(body, methods, res))
        return
      }
      route(body, methods, res)
    })
  })
  const route = (body: Buffer, methods: string[], res: ServerResponse) => {
    {
      const hold = holds.find((h) => methods.some((m) => h.methods.has(m)))
      if (hold) {
        holds.splice(holds.indexOf(hold), 1)
        const h: Held = {
          methods,
          forward: () => {
            held.delete(h)
            void forward(body, res, methods, undefined)
          },
          drop: () => {
            held.delete(h)
            res.socket?.destroy()
          },
        }
        held.add(h)
        hold.resolve(h)
        return
      }
      const fault =
        rate > 0 && !methods.some((m) => spare.has(m)) && random() < rate
          ? kinds[Math.floor(random() * kinds.length)]
          : undefined
      const applied = fault === 'lag' && !methods.includes('eth_blockNumber') ? undefined : fault
      if (applied) faults[applied]++
      if (applied === 'http500') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('injected fault: internal server error')
        return
      }
      if (applied === 'timeout') {
        // No answer: the gateway's RPC timeout runs out; the connection is closed much later.
        setTimeout(() => res.socket?.destroy(), 30_000).unref()
        return
      }
      void forward(body, res, methods, applied)
    }
  }
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const address = server.address() as AddressInfo
  const clear = () => {
    holds.length = 0
    answers.length = 0
    for (const h of [...held]) h.drop()
  }

  const proxy: FaultProxy = {
    inspect: undefined,
    url: `http://127.0.0.1:${address.port}`,
    faults,
    calls,
    hold: (methods) => new Promise<Held>((resolve) => holds.push({ methods: new Set(methods), resolve })),
    afterAnswer: (methods) => new Promise<void>((resolve) => answers.push({ methods: new Set(methods), resolve })),
    faultRate(r, k, rnd) {
      rate = r
      kinds = k
      random = rnd
    },
    clear,
    async close() {
      clear()
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return proxy
}

function methodsOf(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString()) as { method?: string } | Array<{ method?: string }>
    const list = Array.isArray(parsed) ? parsed : [parsed]
    return list.map((r) =>
      r.method === 'eth_getBlockByNumber' && JSON.stringify(r).includes('"0x0"')
        ? 'eth_getBlockByNumber_genesis'
        : String(r.method),
    )
  } catch {
    return ['unparsed']
  }
}

/** The answers to eth_blockNumber made `lagBlocks` old (a lagging endpoint), in a batch too; others unchanged. */
function lagged(text: string, body: Buffer): string {
  try {
    const request = JSON.parse(body.toString()) as
      | { id?: unknown; method?: string }
      | Array<{ id?: unknown; method?: string }>
    const ids = new Set(
      (Array.isArray(request) ? request : [request])
        .filter((r) => r.method === 'eth_blockNumber')
        .map((r) => JSON.stringify(r.id)),
    )
    const parsed = JSON.parse(text) as { id?: unknown; result?: unknown } | Array<{ id?: unknown; result?: unknown }>
    for (const a of Array.isArray(parsed) ? parsed : [parsed]) {
      if (ids.has(JSON.stringify(a.id)) && typeof a.result === 'string')
        a.result = `0x${Math.max(0, Number(a.result) - lagBlocks).toString(16)}`
    }
    return JSON.stringify(parsed)
  } catch {
    return text
  }
}
