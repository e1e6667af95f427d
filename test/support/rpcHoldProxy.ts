// A JSON-RPC proxy in front of a devnet (Solana or EVM) that can hold what a node may hold in real life:
// the confirmations of the transactions sent while holding (their statuses read as unknown until
// released, as when a node lags), or the broadcasts themselves (kept unsent, then sent late or lost).
// Everything else passes through unchanged to the real LiteSVM front.
import { createServer, type Server } from 'node:http'

type RpcRequest = { id?: unknown; method?: string; params?: unknown[] }

export type RpcHoldProxy = {
  url: string
  /** While on, the statuses of transactions sent are answered as unknown until `releaseStatuses()`. */
  holdStatuses(on: boolean): void
  releaseStatuses(): void
  /** While on, sendTransaction is not forwarded (nor answered) until `flushSends()` or `dropSends()`. */
  holdSends(on: boolean): void
  /** Sends the held broadcasts to the node now (the client that asked may be gone). */
  flushSends(): Promise<void>
  dropSends(): void
  heldSends(): number
  /** The bodies of the held broadcasts, in arrival order. */
  heldBodies(): string[]
  /** Sends one held broadcast (by its place in heldBodies) to the node now; the others stay held. */
  flushSend(index: number): Promise<void>
  /**
   * The next `count` sendTransactions lose their answer: the connection is closed without one,
   * after the node got the transaction (`reached`, a reset after the send) or before (a send lost
   * on the way). Replaces what an earlier call left; 0 ends it.
   */
  loseSendAnswers(count: number, reached: boolean): void
  sentSignatures(): string[]
  close(): Promise<void>
}

export async function startRpcHoldProxy(target: string): Promise<RpcHoldProxy> {
  let statusesHeld = false
  let sendsHeld = false
  const heldSignatures = new Set<string>()
  const sent: string[] = []
  const queued: Array<{ body: string; answer: (text: string) => void }> = []
  const lost: boolean[] = []
  const forward = async (body: string) =>
    (await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text()

  async function handle(body: string, answer: (text: string) => void, drop: () => void) {
    let request: RpcRequest
    try {
      request = JSON.parse(body) as RpcRequest
    } catch {
      return answer(await forward(body))
    }
    const isSend = request.method === 'sendTransaction' || request.method === 'eth_sendRawTransaction'
    if (isSend && sendsHeld) {
      queued.push({ body, answer })
      return
    }
    const lose = isSend ? lost.shift() : undefined
    if (lose === false) return drop()
    const text = await forward(body)
    if (isSend) {
      const signature = (JSON.parse(text) as { result?: string }).result
      if (signature) {
        sent.push(signature)
        if (statusesHeld) heldSignatures.add(signature)
      }
      if (lose) return drop()
    }
    if (request.method === 'getSignatureStatuses' && heldSignatures.size > 0) {
      const asked = (request.params?.[0] ?? []) as string[]
      const parsed = JSON.parse(text) as { result?: { value: unknown[] } }
      if (parsed.result)
        parsed.result.value = parsed.result.value.map((v, i) => (heldSignatures.has(asked[i]!) ? null : v))
      return answer(JSON.stringify(parsed))
    }
    // EVM: a held transaction has no receipt yet.
    if (request.method === 'eth_getTransactionReceipt' && heldSignatures.has(String(request.params?.[0]))) {
      return answer(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: null }))
    }
    answer(text)
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      void handle(
        Buffer.concat(chunks).toString('utf8'),
        (text) => {
          if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(text)
        },
        () => res.socket?.destroy(),
      ).catch(() => {
        if (!res.destroyed) res.writeHead(502).end()
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    holdStatuses: (on) => void (statusesHeld = on),
    releaseStatuses: () => heldSignatures.clear(),
    holdSends: (on) => void (sendsHeld = on),
    async flushSends() {
      for (const { body, answer } of queued.splice(0)) {
        const text = await forward(body)
        const signature = (JSON.parse(text) as { result?: string }).result
        if (signature) sent.push(signature)
        answer(text)
      }
    },
    dropSends: () => void queued.splice(0),
    heldBodies: () => queued.map((q) => q.body),
    async flushSend(index) {
      const [one] = queued.splice(index, 1)
      if (!one) return
      const text = await forward(one.body)
      const signature = (JSON.parse(text) as { result?: string }).result
      if (signature) sent.push(signature)
      one.answer(text)
    },
    heldSends: () => queued.length,
    loseSendAnswers: (count, reached) =>
      void lost.splice(0, lost.length, ...Array.from({ length: count }, () => reached)),
    sentSignatures: () => [...sent],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
