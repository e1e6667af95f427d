// The client's follower of an event stream, against a local server that writes server-sent events
// as the spec allows (not only as this gateway writes them): CRLF and CR line ends, comments,
// fields split across network chunks, multi-line data, an event without an id (the last id is
// kept), `retry:`; then a cut, resumed with Last-Event-ID after the delay `retry:` asked.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { followIntentEvents } from '../src/followIntentEvents.ts'
import type { IntentEvent } from '../src/intentEvent.ts'

const event = (id: string, type: string): IntentEvent => ({
  id,
  type: type as IntentEvent['type'],
  intentHash: '0xab',
  chainId: 'eip155:1',
  state: 'pending',
  attempt: 1,
  at: '2026-01-01T00:00:00.000Z',
})

describe('followIntentEvents (server-sent events as the spec writes them)', () => {
  let server: Server
  let url: string
  const connections: { lastEventId: string | undefined; at: number }[] = []
  let script: (req: IncomingMessage, res: ServerResponse, n: number) => void = () => {}

  before(async () => {
    server = createServer((req, res) => {
      const id = req.headers['last-event-id']
      connections.push({ lastEventId: typeof id === 'string' ? id : undefined, at: Date.now() })
      script(req, res, connections.length)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/intents/0xab/events`
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('parses comments, CRLF and CR, split chunks and multi-line data; keeps the last id; resumes after a cut with it, after retry:', async () => {
    connections.length = 0
    const submitted = JSON.stringify(event('e1', 'submitted'))
    const mined = event('e2', 'mined')
    script = (_req, res, n) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' })
      if (n === 1) {
        // retry: 300, a comment, then the first event split mid-field over three writes, CRLF line ends.
        res.write(': hello\r\nretry: 300\r\n\r\n')
        res.write(`id: e1\r\nevent: submitted\r\nda`)
        setTimeout(() => res.write(`ta: ${submitted.slice(0, 20)}`), 20)
        setTimeout(() => res.write(`${submitted.slice(20)}\r\n\r\n`), 40)
        // An event that is not the gateway's (no JSON) and a bare `data` with no id: skipped; the last id stays e1.
        setTimeout(() => res.write('event: ping\ndata: not json\n\n'), 60)
        // Then the connection drops.
        setTimeout(() => res.destroy(), 100)
        return
      }
      // Resumed: multi-line data (the JSON broken over two data: lines is still JSON once joined), CR line ends.
      const json = JSON.stringify(mined)
      const cut = json.indexOf(',"type"') + 1
      const [first, second] = [json.slice(0, cut), json.slice(cut)]
      res.write(`id: e2\revent: mined\rdata: ${first}\rdata: ${second}\r\r`)
      res.end(`id: e3\nevent: final\ndata: ${JSON.stringify(event('e3', 'final'))}\n\n`)
    }
    const got: IntentEvent[] = []
    const result = await followIntentEvents({
      url,
      headers: { authorization: 'Bearer k' },
      fetch,
      deadline: Date.now() + 10_000,
      onEvent: (e) => got.push(e),
    })
    assert.equal(result.end, 'finished')
    assert.deepEqual(
      got.map((e) => e.id),
      ['e1', 'e2', 'e3'],
    )
    assert.deepEqual(got[1], mined)
    assert.equal(connections.length, 2)
    assert.equal(connections[0]!.lastEventId, undefined)
    assert.equal(connections[1]!.lastEventId, 'e1')
    // The server asked for 300 ms between connections (not the 1 s default).
    const gap = connections[1]!.at - connections[0]!.at
    assert.ok(gap >= 300 && gap < 1_000, `reconnected after ${gap} ms`)
  })

  it('says unavailable for a refusal or a body that is not an event stream, and times out at its deadline', async () => {
    connections.length = 0
    script = (_req, res) => void res.writeHead(404, { 'content-type': 'application/json' }).end('{"statusCode":404}')
    assert.deepEqual(await followIntentEvents({ url, headers: {}, fetch, deadline: Date.now() + 5_000 }), {
      end: 'unavailable',
      reason: 'HTTP 404',
      reconnects: 0,
    })
    script = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    assert.deepEqual(await followIntentEvents({ url, headers: {}, fetch, deadline: Date.now() + 5_000 }), {
      end: 'unavailable',
      reason: 'not an event stream (application/json)',
      reconnects: 0,
    })
    // A stream that stays open with comments only: the deadline ends it.
    script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('retry: 1000\n\n')
      const beat = setInterval(() => res.write(': keep-alive\n\n'), 50)
      res.on('close', () => clearInterval(beat))
    }
    const started = Date.now()
    assert.deepEqual(await followIntentEvents({ url, headers: {}, fetch, deadline: Date.now() + 400 }), {
      end: 'timeout',
      reconnects: 0,
    })
    assert.ok(Date.now() - started < 1_500)
    // Silent from the start (a buffering proxy): unavailable after firstByteMs.
    script = (_req, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' })
    const silent = await followIntentEvents({ url, headers: {}, fetch, deadline: Date.now() + 5_000, firstByteMs: 200 })
    assert.equal(silent.end, 'unavailable')
  })

  it('gives up on a stream that ends again and again without an event', async () => {
    connections.length = 0
    script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end('retry: 10\n\n')
    }
    const result = await followIntentEvents({
      url,
      headers: {},
      fetch,
      deadline: Date.now() + 10_000,
      maxReconnects: 3,
    })
    assert.deepEqual(result, {
      end: 'unavailable',
      reason: 'the stream ended 4 times in a row without an event',
      reconnects: 3,
    })
    assert.equal(connections.length, 4)
  })
})
