// The socket connector of undici for calls to endpoints an operator or a client named (webhooks) in
// production: it refuses an internal address however the URL names it. A DNS name is checked by
// publicOnlyLookup on every connection (every address it resolves to, so a rebinding is caught
// too); an IP literal is never looked up, so it is checked here before any packet is sent; and the
// address the socket actually connected to is checked once more before a byte of the request goes.
import { isIP } from 'node:net'
import { buildConnector } from 'undici'
import { isPublicAddress } from './isPublicAddress.ts'
import { publicOnlyLookup } from './publicOnlyLookup.ts'

export type CreatePublicOnlyConnectorParameters = {
  /** How long a connection may take (ms). */
  timeoutMs: number
  /** The DNS lookup; publicOnlyLookup unless a test replaces it to reach the last check. */
  lookup?: typeof publicOnlyLookup
}

export function createPublicOnlyConnector({
  timeoutMs,
  lookup = publicOnlyLookup,
}: CreatePublicOnlyConnectorParameters): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup })
  return (options, callback) => {
    const literal = options.hostname.replace(/^\[|\]$/g, '')
    if (isIP(literal) !== 0 && !isPublicAddress(literal)) return callback(refusal(`${options.hostname} is`), null)
    connect(options, (err, socket) => {
      if (err) return callback(err, null)
      const remote = socket?.remoteAddress
      if (!socket || remote === undefined || !isPublicAddress(remote)) {
        socket?.destroy()
        return callback(refusal(`${options.hostname} connected to ${remote ?? 'an unknown address'},`), null)
      }
      callback(null, socket)
    })
  }
}

function refusal(what: string): Error {
  const err: NodeJS.ErrnoException = new Error(
    `${what} a loopback, private, link-local or reserved address; refused in production`,
  )
  err.code = 'EADDRNOTPUBLIC'
  return err
}
