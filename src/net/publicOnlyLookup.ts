// A DNS lookup for sockets to discovered endpoints in production: it resolves as usual and
// refuses a host that resolves to any loopback, private or link-local address. It runs on every
// connection, so a name that changes its answer after discovery (DNS rebinding) is caught too.
import { type LookupAddress, type LookupOptions, lookup } from 'node:dns'
import { isPublicAddress } from './isPublicAddress.ts'

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: Callback): void {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, options.all ? [] : '')
    const inward = addresses.find((a) => !isPublicAddress(a.address))
    if (inward || addresses.length === 0) {
      const refusal: NodeJS.ErrnoException = new Error(
        `${hostname} resolves to a loopback, private or link-local address (${inward?.address ?? 'none'}); refused in production`,
      )
      refusal.code = 'EADDRNOTPUBLIC'
      return callback(refusal, options.all ? [] : '')
    }
    if (options.all) return callback(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}
