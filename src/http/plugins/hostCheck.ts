// DNS rebinding protection: a web page the operator or a developer visits can point its own host
// name at the gateway's address (127.0.0.1 on a laptop running the devnet, whose API key is
// public) and then call it as if same-origin. Such a request names the page's host in `Host` and,
// on a POST, the page's origin in `Origin`. So:
// - `/mcp` (and any route named in `hostRoutes`) is served only when `Host` is PUBLIC_URL's host
//   or, outside production, localhost / 127.0.0.1 / [::1] with the port the gateway listens on;
// - every route refuses a request whose `Origin`, when there is one, is not PUBLIC_URL's origin, one
//   of CORS_ORIGINS, or (outside production) a local origin as above. A request without `Origin`
//   (agents and servers send none) is not refused for that.
// The Host check is not applied to every route: health probes and callers inside a cluster name
// the pod's address or an internal name, not PUBLIC_URL's host.
// A refusal is 403 (0x10) with a problem type of its own, answered before anything runs.
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Status } from '../../status/statusCodes.ts'
import { toProblemDetails } from '../problemDetails.ts'

export const foreignHostType = 'urn:intent-gateway:problem:foreign-host'

export type HostCheckOptions = {
  /** PUBLIC_URL: the origin clients reach the gateway at (`https://gateway.example`). */
  publicUrl: string | undefined
  /** In production only PUBLIC_URL's host and origin are ours; outside it, local ones too. */
  production: boolean
  /** CORS_ORIGINS: browser origins allowed to call; `*` allows any. */
  corsOrigins: readonly string[]
  /** The route patterns whose Host is checked (default `/mcp`). */
  hostRoutes?: readonly string[] | undefined
}

const localHosts = ['localhost', '127.0.0.1', '[::1]']

export function registerHostCheck(
  app: FastifyInstance,
  { publicUrl, production, corsOrigins, hostRoutes = ['/mcp'] }: HostCheckOptions,
) {
  const publicOrigin = publicUrl ? new URL(publicUrl) : undefined
  // Host as a client may write it: with or without the scheme's default port.
  const publicHosts = publicOrigin
    ? [
        publicOrigin.host,
        `${publicOrigin.hostname}:${publicOrigin.port || (publicOrigin.protocol === 'https:' ? '443' : '80')}`,
      ]
    : []
  const anyOrigin = corsOrigins.includes('*')
  const listed = new Set([...corsOrigins, ...(publicOrigin ? [publicOrigin.origin] : [])].map((o) => o.toLowerCase()))
  const checked = new Set(hostRoutes)
  /** The port the server listens on (80 when it does not: app.inject's requests name localhost:80). */
  const port = () => (app.server.address() as AddressInfo | null)?.port ?? 80
  const localHostsNow = () => (production ? [] : localHosts.map((h) => `${h}:${port()}`))

  const hostAllowed = (host: string) => {
    const name = host.toLowerCase()
    return publicHosts.includes(name) || localHostsNow().includes(name)
  }
  const originAllowed = (origin: string) => {
    if (anyOrigin) return true
    const name = origin.toLowerCase()
    return listed.has(name) || localHostsNow().some((h) => name === `http://${h}` || name === `https://${h}`)
  }

  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin
    if (origin !== undefined && !originAllowed(origin))
      return void refuse(
        request,
        reply,
        `the Origin ${quote(origin)} is not this gateway's (PUBLIC_URL) nor one of CORS_ORIGINS`,
      )
    if (checked.has(request.routeOptions.url ?? '') && !hostAllowed(request.host)) {
      return void refuse(
        request,
        reply,
        `the Host ${quote(request.host)} is not this gateway's: call it at ${publicOrigin ? publicOrigin.origin : `http://127.0.0.1:${port()}`}`,
      )
    }
    done()
  })
}

function refuse(request: FastifyRequest, reply: FastifyReply, detail: string) {
  request.gateway.status = Status.DISALLOWED
  const problem = toProblemDetails({
    httpStatus: 403,
    status: Status.DISALLOWED,
    title: 'Not a host or origin of this gateway',
    detail,
    context: request.gateway,
  })
  reply
    .code(403)
    .type('application/problem+json')
    .send({ ...problem, type: foreignHostType })
}

/** A header value as it can be shown: printable ASCII, at most 100 characters. */
function quote(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)}"`
}
