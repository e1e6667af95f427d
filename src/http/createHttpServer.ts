// The Node HTTP server under Fastify, with the bounds Node leaves off by default against clients
// that hold connections: the whole request must arrive within requestTimeoutMs; a connection
// with no request in progress (before its first, between keep-alive requests) is closed after
// idleTimeoutMs; at most maxConnections are open at once, and at most maxConnectionsPerClient
// from one client address, the next ones refused at accept. A request in progress is never idle:
// a slow answer (an execute waiting for its receipt) is not cut. An answer given before the body
// was read (413) reaches the client: the rest of the body is read and discarded, up to a bound,
// before the connection is closed.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import { BlockList, isIPv4 } from 'node:net'
import type { Logger } from 'pino'
import { toClientAddressKey } from './toClientAddressKey.ts'

export type CreateHttpServerParameters = {
  handler: RequestListener
  requestTimeoutMs: number
  idleTimeoutMs: number
  maxConnections: number
  /** How many of those one client address (toClientAddressKey) may hold; default: maxConnections. */
  maxConnectionsPerClient?: number | undefined
  /** Proxies (IPs and CIDRs) whose connections carry many clients: not capped per address. */
  trustedProxies?: readonly string[] | undefined
  /** The most of an unread body read and discarded after its answer before the connection is cut; default 4 MiB. */
  lingerBytes?: number | undefined
  /** The longest a connection lingers after its answer for the rest of a body; default 5 s. */
  lingerMs?: number | undefined
  logger: Logger
}

export function createHttpServer({
  handler,
  requestTimeoutMs,
  idleTimeoutMs,
  maxConnections,
  maxConnectionsPerClient = maxConnections,
  trustedProxies = [],
  lingerBytes = 4 * 1024 * 1024,
  lingerMs = 5_000,
  logger,
}: CreateHttpServerParameters): Server {
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
  // Before the handler, which may answer at once.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    request.socket.setTimeout(0)
    lingerAfterEarlyAnswer(request, response, { lingerBytes, lingerMs })
  })

  // Refusals are logged at most once every 10 s, with how many there were.
  let dropped = 0
  const reportDrop = throttledReport(() =>
    logger.warn(
      { maxConnections, refused: dropped },
      'connection limit reached: new connections are refused (MAX_CONNECTIONS)',
    ),
  )
  server.on('drop', () => {
    dropped++
    if (reportDrop()) dropped = 0
  })

  // Without a cap per address, one client reopening idle connections as they are closed holds
  // all maxConnections and nobody else (not even a health probe) gets in. A trusted proxy's
  // connections carry many clients, each limited by its forwarded address at the rate limit.
  const trusted = toBlockList(trustedProxies)
  const open = new Map<string, number>()
  let refused = 0
  const reportRefused = throttledReport(() =>
    logger.warn(
      { maxConnectionsPerClient, refused },
      'connection limit per client reached: new connections from those clients are refused (MAX_CONNECTIONS_PER_CLIENT)',
    ),
  )
  server.on('connection', (socket) => {
    const address = socket.remoteAddress
    if (address === undefined || trusted?.check(address, isIPv4(address) ? 'ipv4' : 'ipv6')) return
    const key = toClientAddressKey(address)
    const count = open.get(key) ?? 0
    if (count >= maxConnectionsPerClient) {
      socket.destroy()
      refused++
      if (reportRefused()) refused = 0
      return
    }
    open.set(key, count + 1)
    socket.once('close', () => {
      const left = open.get(key)! - 1
      if (left === 0) open.delete(key)
      else open.set(key, left)
    })
  })
  return server
}

/**
 * An answer sent before the body was read (413 for a declared or streamed body over the limit)
 * closes the connection. Closing it while the client is still sending makes the kernel answer
 * the unread bytes with a reset, which can destroy the answer in the client's buffer before it
 * is read. So the body's rest is read and discarded, up to lingerBytes and lingerMs, and the
 * connection closed once it has all come in (or the client closes first).
 */
function lingerAfterEarlyAnswer(
  request: IncomingMessage,
  response: ServerResponse,
  { lingerBytes, lingerMs }: { lingerBytes: number; lingerMs: number },
) {
  response.once('prefinish', () => {
    if (request.complete) return
    // Reading from here on also keeps Node from dumping the body unseen, so it can be counted.
    let read = 0
    request.on('data', (chunk: Buffer) => {
      read += chunk.length
      if (read > lingerBytes) request.socket.destroy()
    })
    response.once('finish', () => {
      const socket = request.socket
      // Node ended the socket after a closing answer and would destroy it once the answer is out;
      // an answer that keeps the connection leaves nothing to do (the body is read as above).
      if (request.complete || socket.destroyed || !socket.listeners('finish').includes(socket.destroy)) return
      socket.removeListener('finish', socket.destroy)
      const close = () => (socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy()))
      const timer = setTimeout(() => socket.destroy(), lingerMs)
      request.once('end', close)
      socket.once('end', close)
      socket.once('close', () => clearTimeout(timer))
    })
  })
}

/** A report that runs at most once every 10 s; answers whether it ran. */
function throttledReport(report: () => void): () => boolean {
  let reportAt = 0
  return () => {
    const now = Date.now()
    if (now < reportAt) return false
    reportAt = now + 10_000
    report()
    return true
  }
}

/** TRUSTED_PROXIES (checked by loadConfig): addresses and CIDR ranges. */
function toBlockList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined
  const list = new BlockList()
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined]
    const type = isIPv4(address) ? 'ipv4' : 'ipv6'
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(prefix), type)
  }
  return list
}
