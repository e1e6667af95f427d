import assert from 'node:assert/strict'
import { lookup } from 'node:dns'
import { createServer } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { Agent, fetch } from 'undici'
import { createPublicOnlyConnector } from './createPublicOnlyConnector.ts'

describe('createPublicOnlyConnector', () => {
  let port = 0
  const requests: string[] = []
  let connections = 0
  const server = createServer((req, res) => {
    requests.push(req.url ?? '')
    res.end('ok')
  })
  server.on('connection', () => connections++)
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const call = async (url: string, connect = createPublicOnlyConnector({ timeoutMs: 2_000 })) => {
    const dispatcher = new Agent({ connect })
    try {
      await fetch(url, { dispatcher })
      return 'answered'
    } catch (err) {
      return ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message
    } finally {
      await dispatcher.close()
    }
  }

  it('refuses an internal IP literal before connecting, in every form the URL parser accepts', async () => {
    for (const host of ['127.0.0.1', '2130706433', '0x7f.0.0.1', '[::ffff:127.0.0.1]']) {
      assert.match(
        await call(`http://${host}:${port}/secret`),
        /is a loopback, private, link-local or reserved address; refused in production/,
        host,
      )
    }
    assert.equal(connections, 0, 'no connection was opened')
    assert.deepEqual(requests, [])
  })

  it('refuses a name that resolves inward (the lookup), and checks the address actually connected to when a lookup let it through', async () => {
    assert.match(await call(`http://localhost:${port}/secret`), /resolves to a loopback, private or link-local address/)
    assert.equal(connections, 0)
    // An ordinary lookup lets localhost through: the socket's own address is checked before the request is written.
    const permissive = createPublicOnlyConnector({
      timeoutMs: 2_000,
      lookup: ((h: string, o: object, cb: never) => lookup(h, { ...o, family: 4 }, cb)) as never,
    })
    assert.match(
      await call(`http://localhost:${port}/secret`, permissive),
      /localhost connected to 127\.0\.0\.1, a loopback, private, link-local or reserved address; refused in production/,
    )
    assert.deepEqual(requests, [], 'nothing was sent on the connection')
  })
})
