// A Standard Webhooks receiver on loopback for the tests: verifies every delivery with the
// `standardwebhooks` package and its own secret, records what it took, the ids it was tried with
// (in order) and the bodies whose signature it refused, and answers what `answer` says.
import { createServer, type Server } from 'node:http'
import { Webhook } from 'standardwebhooks'

export type WebhookDelivery = { id: string; type: string; intentHash: string; state: string; [field: string]: unknown }

export type WebhookReceiver = {
  url: string
  /** The deliveries it verified and answered 2xx, in arrival order. */
  deliveries: WebhookDelivery[]
  /** Every webhook-id it was sent, in order (a retry appears again). */
  tries: string[]
  /** How many times each webhook-id was sent. */
  triesOf: Map<string, number>
  /** Bodies whose signature did not verify with the receiver's secret. */
  badSignatures: string[]
  close(): Promise<void>
}

/** `answer(id, tryNumber)`: the HTTP status for a delivery that verified (default 204); `refuse`: 503 to everything, unverified. */
export async function startWebhookReceiver(
  secret: string,
  { answer = () => 204, refuse = false }: { answer?: (id: string, tries: number) => number; refuse?: boolean } = {},
): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret)
  const deliveries: WebhookDelivery[] = []
  const tries: string[] = []
  const triesOf = new Map<string, number>()
  const badSignatures: string[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const id = String(req.headers['webhook-id'])
      tries.push(id)
      if (refuse) {
        res.writeHead(503).end()
        return
      }
      try {
        verifier.verify(body, {
          'webhook-id': id,
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        })
      } catch {
        badSignatures.push(body)
        res.writeHead(400).end()
        return
      }
      const n = (triesOf.get(id) ?? 0) + 1
      triesOf.set(id, n)
      const status = answer(id, n)
      if (status >= 200 && status < 300) deliveries.push(JSON.parse(body) as WebhookDelivery)
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`
  return {
    url,
    deliveries,
    tries,
    triesOf,
    badSignatures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
