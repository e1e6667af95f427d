// A JSON-RPC proxy in front of a devnet that loses answers: armed for a method, it forwards the next
// requests calling it to the node (which acts on them) and then resets the client's connection
// without answering, as a flaky load balancer or a network fault does. Everything else passes through.
import { createServer, type Server } from 'node:http'

export type RpcResetProxy = {
  url: string
  /** The next `count` requests calling `method` reach the node; their answers are lost (connection reset). */
  resetAfterForward(method: string, count: number): void
  /** How many answers were lost so far. */
  resets(): number
  close(): Promise<void>
}

export async function startRpcResetProxy(target: string): Promise<RpcResetProxy> {
  const armed = new Map<string, number>()
  let resets = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let method: string | undefined
      try {
        method = (JSON.parse(body) as { method?: string }).method
      } catch {}
      void (async () => {
        const text = await (
          await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        ).text()
        const left = method ? (armed.get(method) ?? 0) : 0
        if (left > 0) {
          armed.set(method!, left - 1)
          resets++
          req.socket.resetAndDestroy()
          return
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(text)
      })().catch(() => {
        if (!res.destroyed) res.writeHead(502).end()
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    resetAfterForward: (method, count) => void armed.set(method, count),
    resets: () => resets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
