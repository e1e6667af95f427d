// The Node HTTP server under Fastify, with the bounds Node leaves off by default against clients
// that hold connections: the whole request must arrive within requestTimeoutMs; a connection
// with no request in progress (before its first, between keep-alive requests) is closed after
// idleTimeoutMs; at most maxConnections are open at once, the next ones refused at accept. A
// request in progress is never idle: a slow answer (an execute waiting for its receipt) is not cut.
import { createServer, type RequestListener, type Server } from 'node:http'
import type { Logger } from 'pino'

export type CreateHttpServerParameters = {
  handler: RequestListener
  requestTimeoutMs: number
  idleTimeoutMs: number
  maxConnections: number
  logger: Logger
}

export function createHttpServer({ handler, requestTimeoutMs, idleTimeoutMs, maxConnections, logger }: CreateHttpServerParameters): Server {
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      // Checked often enough to cut on time.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 5))),
      // Node arms this after each answer and disarms it when the next request starts.
      keepAliveTimeout: idleTimeoutMs,
    },
    handler,
  )
  server.maxConnections = maxConnections
  // Before the first request the socket's own inactivity timer is the bound (with no listener
  // for the timeout, Node destroys the socket); the first request disarms it, as Node does for
  // the keep-alive timer.
  server.on('connection', (socket) => socket.setTimeout(idleTimeoutMs))
  server.on('request', (request) => request.socket.setTimeout(0))

  // Refusals are logged at most once every 10 s, with how many there were.
  let dropped = 0
  let reportAt = 0
  server.on('drop', () => {
    dropped++
    const now = Date.now()
    if (now < reportAt) return
    reportAt = now + 10_000
    logger.warn({ maxConnections, refused: dropped }, 'connection limit reached: new connections are refused (MAX_CONNECTIONS)')
    dropped = 0
  })
  return server
}
