// The id each request is known by in the logs and in its X-Request-Id answer (docs/api-contract.md §15):
// the caller's own, when it is 1–128 visible ASCII characters, so that an agent can match its
// logs with ours; anything else is replaced, never echoed, since it could carry a line break or a
// payload meant for whoever reads the logs.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const acceptable = /^[\x21-\x7e]{1,128}$/

export function genRequestId(request: Pick<IncomingMessage, 'headers'>): string {
  const header = request.headers['x-request-id']
  return typeof header === 'string' && acceptable.test(header) ? header : randomUUID()
}
