// Sends a request to one of the gateway's own routes in-process (Fastify's inject), on behalf of
// a client of another interface (the MCP tools): with that client's Authorization, X-Chain-Id,
// payment and address, so that keys, limits, payments, statuses and metrics are the route's own.
// Such a request is marked with a secret of this process, so that the rate limit, which has
// counted the client's tool call already (routes/mcp.ts), does not count it twice.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RouteRequest } from './mcp/createMcpServer.ts'
import type { RouteAnswer } from './mcp/toToolResult.ts'

const markerHeader = 'x-intent-gateway-in-process'

export type RouteCaller = {
  /** The route's answer to `route`, sent as the client of `from` would send it. */
  call(from: FastifyRequest, route: RouteRequest): Promise<RouteAnswer>
  /** Whether a request was sent by `call` (not by a client). */
  isInProcess(request: FastifyRequest): boolean
}

export function createRouteCaller(app: FastifyInstance): RouteCaller {
  const secret = randomBytes(32).toString('base64url')
  const expected = Buffer.from(secret)
  return {
    async call(from, { method, url, body, chainId, paymentSignature, idempotencyKey }) {
      const authorization = from.headers.authorization
      // The client's Host, so that what a route builds from it (an x402 resource URL) names this gateway as the client reached it.
      const host = from.headers.host
      const chain = chainId ?? first(from.headers['x-chain-id'])
      const response = await app.inject({
        method,
        url,
        remoteAddress: from.ip,
        headers: {
          [markerHeader]: secret,
          ...(host !== undefined ? { host } : {}),
          ...(authorization !== undefined ? { authorization } : {}),
          ...(chain !== undefined ? { 'x-chain-id': chain } : {}),
          ...(paymentSignature !== undefined ? { 'payment-signature': paymentSignature } : {}),
          ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      })
      let parsed: unknown
      try {
        parsed = response.body ? JSON.parse(response.body) : undefined
      } catch {
        parsed = { text: response.body }
      }
      return { httpStatus: response.statusCode, headers: response.headers, body: parsed }
    },
    isInProcess(request) {
      const presented = request.headers[markerHeader]
      if (typeof presented !== 'string') return false
      const given = Buffer.from(presented)
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
  }
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
