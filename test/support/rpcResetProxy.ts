// A JSON-RPC proxy in front of a devnet that loses answers: armed for a method, it forwards the
// requests calling it to the node (which acts on them) and then resets the client's connection
// without answering, as a flaky load balancer or a network fault does; or resets it before
// forwarding (the request lost on the way). Calls are counted one by one, inside JSON-RPC batches
// too: a batch holding an armed call is lost whole, every call in it. Everything else passes through.
import { createServer, type Server } from 'node:http'

export type RpcResetProxy = {
  url: string
  /**
   * The `count` calls of `method` after the next `skip` of them reach the node; their answers are
   * lost (connection reset).
   */
  resetAfterForward(method: string, count: number, skip?: number): void
  /**
   * The `count` calls of `method` after the next `skip` of them never reach the node: the
   * connection is reset before they are forwarded.
   */
  resetBeforeForward(method: string, count: number, skip?: number): void
  /** How many requests were reset so far. */
  resets(): number
  /** How many calls of `method` were lost so far, `before` or after the node got them. */
  lostCalls(method: string, when: 'before' | 'after'): number
  close(): Promise<void>
}

type Range = { from: number; to: number }

export async function startRpcResetProxy(target: string): Promise<RpcResetProxy> {
  /** Per method: how many calls of it came, which lose their answer, which are lost on the way. */
  const seen = new Map<string, number>()
  const ranges = { after: new Map<string, Range>(), before: new Map<string, Range>() }
  const lost = { after: new Map<string, number>(), before: new Map<string, number>() }
  let resets = 0
  const arm = (when: 'before' | 'after', method: string, count: number, skip: number) => {
    const from = (seen.get(method) ?? 0) + skip
    ranges[when].set(method, { from, to: from + count })
  }
  /** The request's calls, numbered per method. */
  const numbered = (body: string): { method: string; index: number }[] => {
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      return []
    }
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((call) => {
      const method = (call as { method?: unknown } | null)?.method
      if (typeof method !== 'string') return []
      const index = seen.get(method) ?? 0
      seen.set(method, index + 1)
      return [{ method, index }]
    })
  }
  /** Resets the request when one of its calls is armed `when`, counting what it loses. */
  const resetIfArmed = (
    when: 'before' | 'after',
    calls: { method: string; index: number }[],
    req: { socket: { resetAndDestroy(): void } },
  ) => {
    const hit = calls.some(({ method, index }) => {
      const range = ranges[when].get(method)
      return range !== undefined && index >= range.from && index < range.to
    })
    if (!hit) return false
    resets++
    for (const { method } of calls) lost[when].set(method, (lost[when].get(method) ?? 0) + 1)
    req.socket.resetAndDestroy()
    return true
  }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const calls = numbered(body)
      if (resetIfArmed('before', calls, req)) return
      void (async () => {
        const text = await (
          await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        ).text()
        if (resetIfArmed('after', calls, req)) return
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
    resetAfterForward: (method, count, skip = 0) => arm('after', method, count, skip),
    resetBeforeForward: (method, count, skip = 0) => arm('before', method, count, skip),
    resets: () => resets,
    lostCalls: (method, when) => lost[when].get(method) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
