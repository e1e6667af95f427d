// The security headers (helmet's defaults), computed once at start-up: @fastify/helmet builds
// helmet's whole middleware chain again on every request, which cost ~8% of a validate's CPU.
import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet from 'helmet'

/** What helmet() sets on a response, as lower-case header names and their values. */
export function securityHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value)
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()]
    },
  }
  // helmet's middleware is synchronous; its defaults read nothing of the request, and of the response only
  // setHeader and removeHeader: stand-ins, cast to the node:http types helmet's signature names.
  helmet()({} as IncomingMessage, response as ServerResponse, (err?: unknown) => {
    if (err) throw err
  })
  return Object.freeze(headers)
}
