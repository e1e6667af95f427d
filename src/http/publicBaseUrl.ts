// The gateway's own address as it tells clients (x402 `resource.url`, /discovery/resources):
// PUBLIC_URL, never the request's Host header, which any caller writes. Without PUBLIC_URL
// (outside production), the loopback address and the port it listens on, as the devnet prints.
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** PUBLIC_URL (buildApp decorates the app with it); undefined when not configured. */
    publicUrl: string | undefined
  }
}

export function publicBaseUrl(app: FastifyInstance): string {
  if (app.publicUrl) return app.publicUrl
  // app.inject's requests reach a server that does not listen: they name localhost:80.
  const port = (app.server.address() as AddressInfo | null)?.port ?? 80
  return `http://127.0.0.1:${port}`
}
