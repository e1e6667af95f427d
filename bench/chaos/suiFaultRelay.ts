// An HTTP relay between one gateway and the Sui stand-in (gRPC-web keeps the method in the path,
// which the campaign's JSON-RPC fault proxy does not forward): each request passed on with its path
// and headers, or, at `rate`, answered HTTP 500, left unanswered (the gateway's RPC timeout runs
// out), or reset after the node got it (its answer lost). Faults counted by kind.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export type SuiFaultRelay = {
  url: string
  rate: number
  faults: { http500: number; timeout: number; reset: number }
  close(): Promise<void>
}

export async function startSuiFaultRelay({
  target,
  random,
}: {
  target: string
  random: () => number
}): Promise<SuiFaultRelay> {
  const sockets = new Set<Socket>()
  const kinds = ['http500', 'timeout', 'reset'] as const
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const fault = relay.rate > 0 && random() < relay.rate ? kinds[Math.floor(random() * kinds.length)]! : undefined
    if (fault) relay.faults[fault]++
    if (fault === 'http500') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('injected fault')
    if (fault === 'timeout') return void setTimeout(() => res.socket?.destroy(), 30_000).unref()
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v
    const upstream = await fetch(`${target}${req.url ?? '/'}`, {
      method: req.method ?? 'POST',
      headers,
      body: Buffer.concat(chunks),
    })
    const body = Buffer.from(await upstream.arrayBuffer())
    if (fault === 'reset') return void res.socket?.destroy()
    const out: Record<string, string> = {}
    upstream.headers.forEach((v, k) => {
      if (!['content-length', 'connection', 'transfer-encoding', 'keep-alive'].includes(k)) out[k] = v
    })
    res.writeHead(upstream.status, out).end(body)
  }
  const server = createServer((req, res) => void handle(req, res).catch(() => res.socket?.destroy()))
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const relay: SuiFaultRelay = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    rate: 0,
    faults: { http500: 0, timeout: 0, reset: 0 },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return relay
}
