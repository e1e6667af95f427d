// An endpoint as the logs name it: its origin and a short hash of its path and query, never the
// path itself. Slack, Discord and many others put the endpoint's secret token in the path, and a
// failed delivery is logged at every retry; the hash still tells an operator's endpoints apart
// (compute it with `printf '%s' '/the/path?query' | sha256sum | cut -c1-8`).
import { createHash } from 'node:crypto'

export type EndpointDescription = { endpoint: string; endpointPath: string }

export function describeEndpoint(url: string): EndpointDescription {
  try {
    const u = new URL(url)
    return {
      endpoint: u.origin,
      endpointPath: `sha256:${createHash('sha256').update(`${u.pathname}${u.search}`).digest('hex').slice(0, 8)}`,
    }
  } catch {
    return { endpoint: 'an invalid URL', endpointPath: 'none' }
  }
}
