// A local HTTP server whose answer the test sets: the stand-in for the public chain-list registry.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

export type TestServer = {
  url: string
  requests: number
  handle: (req: IncomingMessage, res: ServerResponse) => void
  close(): Promise<void>
}

export async function startHttpServer(): Promise<TestServer> {
  const state: TestServer = {
    url: '',
    requests: 0,
    handle: (_req, res) => res.writeHead(404).end(),
    close: async () => {},
  }
  const server = createServer((req, res) => {
    state.requests++
    state.handle(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/rpcs.json`
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return state
}

export const json = (body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body))
}
