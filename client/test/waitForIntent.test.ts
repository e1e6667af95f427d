// The client's wait against a real gateway on anvil, through a recording proxy: it follows the
// event stream and reads the outcome once (no polling), resumes with Last-Event-ID after the
// connection is cut mid-stream, keeps its timeout, and polls when the stream is refused (an older
// gateway: 404), is not an event stream, or is held back by a proxy that buffers.
import assert from 'node:assert/strict'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import {
  demoIntent,
  rpc,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../../test/support/testGateway.ts'
import { createGatewayClient, type IntentEvent, type IntentInput } from '../src/index.ts'

type Seen = { method: string; path: string; lastEventId: string | undefined; at: number }
/** What the proxy does with GET …/events: pass it, cut the first one after its first event, or stand in for a gateway or proxy without the stream. */
type EventsMode = 'pass' | 'cut-first' | 'not-found' | 'not-a-stream' | 'buffer'

/** A proxy in front of the gateway that records every request and can spoil the event stream. */
async function startProxy(target: string, mode: EventsMode) {
  const seen: Seen[] = []
  const upstream = new URL(target)
  let eventsRequests = 0
  const held: ServerResponse[] = []
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/'
    const lastEventId = req.headers['last-event-id']
    seen.push({
      method: req.method ?? '',
      path,
      lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
      at: Date.now(),
    })
    const events = /\/events$/.test(path)
    if (events && mode === 'not-found') {
      // As a gateway from before the stream answers a route it does not have.
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: `Route GET:${path} not found`, error: 'Not Found', statusCode: 404 }))
      return
    }
    if (events && mode === 'not-a-stream') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a captive portal</html>')
      return
    }
    if (events && mode === 'buffer') {
      // Holds the whole answer back, as a buffering proxy does with a stream that has not ended.
      held.push(res)
      return
    }
    const nth = events ? ++eventsRequests : 0
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        if (events && mode === 'cut-first' && nth === 1) {
          let text = ''
          answer.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8')
            // The first event is through (written out): the connection drops.
            const cut = /event: submitted\n[\s\S]*?\n\n/.test(text)
            res.write(chunk, () => {
              if (cut) setTimeout(() => (answer.destroy(), res.destroy()), 50)
            })
          })
          return
        }
        answer.pipe(res)
      },
    )
    forward.on('error', () => res.destroy())
    req.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: async () => {
      for (const r of held) r.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('waitForIntent follows the event stream', () => {
  let world: World
  let slow: TestGateway
  const sender = privateKeyToAccount(devnetAccounts.sender)
  let nonce = 3_100
  const intent = () => demoIntent(world.devnet, { nonce: String(nonce++) }) as unknown as IntentInput
  const mine = () => rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])

  before(async () => {
    world = await startWorld()
    // Answers 202 (0xF3) at once while anvil does not mine: the wait has something to wait for.
    slow = await startTestGateway({ chains: [world.devnet.chain], receiptTimeoutMs: 100 })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
  })
  after(async () => {
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true]).catch(() => {})
    await slow?.close()
    await world?.stop()
  })

  /** Executes through the proxy: 202 (0xF3), sent and not mined. */
  async function executePending(url: string) {
    const client = createGatewayClient({ url, account: sender, chainId: '31337' })
    const sent = await client.execute(intent())
    assert.equal(sent.httpStatus, 202, JSON.stringify(sent.body))
    assert.equal(sent.status, '0xF3')
    return { client, sent, intentHash: sent.intentHash! }
  }
  const reads = (seen: Seen[], intentHash: string) =>
    seen.filter((s) => s.method === 'GET' && s.path === `/intents/${intentHash}`)
  const eventRequests = (seen: Seen[], intentHash: string) =>
    seen.filter((s) => s.method === 'GET' && s.path === `/intents/${intentHash}/events`)

  it('returns the final outcome from the stream: the events as they happen, then one read of the outcome, no polling', async () => {
    const proxy = await startProxy(slow.baseUrl, 'pass')
    try {
      const { client, sent, intentHash } = await executePending(proxy.url)
      const events: IntentEvent[] = []
      let finalAt = 0
      const outcome = await client.waitForIntent(sent, {
        timeoutMs: 20_000,
        intervalMs: 50,
        onEvent: (e) => {
          events.push(e)
          if (e.type === 'submitted') void mine()
          if (e.type === 'final') finalAt = Date.now()
        },
      })
      assert.equal(outcome.status, '0x11', JSON.stringify(outcome.body))
      assert.equal(outcome.action, 'done')
      assert.equal(outcome.httpStatus, 200)
      assert.equal(outcome.transactionHash, sent.transactionHash)
      assert.deepEqual(
        events.map((e) => e.type),
        ['submitted', 'mined', 'final'],
      )
      assert.ok(
        events.every(
          (e) =>
            e.intentHash === intentHash && e.chainId === 'eip155:31337' && e.transactionHash === sent.transactionHash,
        ),
      )
      assert.equal(eventRequests(proxy.seen, intentHash).length, 1)
      // Polling at 50 ms would have read it dozens of times; the stream reads it once, after the last event.
      const got = reads(proxy.seen, intentHash)
      assert.equal(got.length, 1, `GET /intents/${intentHash} was read ${got.length} times`)
      assert.ok(got[0]!.at >= finalAt)
      // The gateway's own log agrees: one read of the intent.
      const logged = slow.logs.filter(
        (l) => l.includes(`"url":"/intents/${intentHash}"`) && l.includes('"method":"GET"'),
      )
      assert.equal(logged.length, 1)
    } finally {
      await proxy.close()
    }
  })

  it('resumes with Last-Event-ID after the connection is cut mid-stream: each event once, the outcome final', async () => {
    const proxy = await startProxy(slow.baseUrl, 'cut-first')
    try {
      const { client, sent, intentHash } = await executePending(proxy.url)
      const events: IntentEvent[] = []
      const outcome = await client.waitForIntent(sent, {
        timeoutMs: 20_000,
        onEvent: (e) => {
          events.push(e)
          // Mined while the client is disconnected: the resumed stream brings the rest.
          if (e.type === 'submitted') setTimeout(() => void mine(), 100)
        },
      })
      assert.equal(outcome.status, '0x11', JSON.stringify(outcome.body))
      assert.deepEqual(
        events.map((e) => e.type),
        ['submitted', 'mined', 'final'],
      )
      const connections = eventRequests(proxy.seen, intentHash)
      assert.equal(connections.length, 2)
      assert.equal(connections[0]!.lastEventId, undefined)
      assert.equal(connections[1]!.lastEventId, events[0]!.id, 'the second connection resumes after the event received')
      assert.equal(reads(proxy.seen, intentHash).length, 1)
    } finally {
      await proxy.close()
    }
  })

  it('keeps its timeout on the stream: the last answer, still retry, after timeoutMs', async () => {
    const proxy = await startProxy(slow.baseUrl, 'pass')
    try {
      const { client, sent, intentHash } = await executePending(proxy.url)
      const started = Date.now()
      const events: IntentEvent[] = []
      const outcome = await client.waitForIntent(sent, { timeoutMs: 1_500, onEvent: (e) => events.push(e) })
      const took = Date.now() - started
      assert.ok(took >= 1_400 && took < 5_000, `waited ${took} ms`)
      assert.equal(outcome, sent, 'the last answer it had')
      assert.equal(outcome.action, 'retry')
      assert.deepEqual(
        events.map((e) => e.type),
        ['submitted'],
      )
      assert.equal(reads(proxy.seen, intentHash).length, 0)
      // By hash only, there is no answer yet: it reads one at the end, as polling would.
      const byHash = await client.waitForIntent(intentHash, { timeoutMs: 500 })
      assert.equal(byHash.status, '0xF3')
      assert.equal(reads(proxy.seen, intentHash).length, 1)
      await mine()
      assert.equal((await client.waitForIntent(intentHash, { timeoutMs: 10_000 })).status, '0x11')
    } finally {
      await proxy.close()
    }
  })

  for (const mode of ['not-found', 'not-a-stream', 'buffer'] as const) {
    it(`falls back to polling when the stream is ${mode === 'not-found' ? 'refused (404: a gateway without it)' : mode === 'not-a-stream' ? 'not an event stream' : 'held back by a proxy that buffers'}`, async () => {
      const proxy = await startProxy(slow.baseUrl, mode)
      try {
        const { client, sent, intentHash } = await executePending(proxy.url)
        const events: IntentEvent[] = []
        const polled: string[] = []
        // Mined once the client has polled twice.
        const outcome = await client.waitForIntent(sent, {
          timeoutMs: 20_000,
          intervalMs: 100,
          onEvent: (e) => events.push(e),
          onProgress: ({ attempt, result }) => {
            polled.push(result.status)
            if (attempt === 2) void mine()
          },
        })
        assert.equal(outcome.status, '0x11', JSON.stringify(outcome.body))
        assert.deepEqual(events, [])
        assert.equal(eventRequests(proxy.seen, intentHash).length, 1, 'the stream is tried once, then polling')
        assert.ok(reads(proxy.seen, intentHash).length >= 3, `polled ${reads(proxy.seen, intentHash).length} times`)
        assert.deepEqual(polled.slice(0, 2), ['0xF3', '0xF3'])
        assert.equal(polled.at(-1), '0x11')
      } finally {
        await proxy.close()
      }
    })
  }

  it('polls only, when asked (stream: false)', async () => {
    const proxy = await startProxy(slow.baseUrl, 'pass')
    try {
      const { client, sent, intentHash } = await executePending(proxy.url)
      const outcome = await client.waitForIntent(sent, {
        timeoutMs: 20_000,
        intervalMs: 100,
        stream: false,
        onProgress: ({ attempt }) => attempt === 1 && void mine(),
      })
      assert.equal(outcome.status, '0x11')
      assert.equal(eventRequests(proxy.seen, intentHash).length, 0)
      assert.ok(reads(proxy.seen, intentHash).length >= 2)
    } finally {
      await proxy.close()
    }
  })
})
