// Event streams cannot be hoarded, and a finished one is not reconnected to for ever. Against anvil,
// over real HTTP from several loopback addresses (127.0.0.x are all this host's): each client
// (address, or API key) holds at most 4 streams, an intent at most 16, the gateway at most its
// share of MAX_CONNECTIONS; one more is 429 (0xF6) with Retry-After and a problem type of its own;
// with every stream allowed held and a flood of more, health probes from elsewhere get in. A
// client that has seen a finished intent's last event gets 204, which stops the `eventsource`
// package (a standard EventSource) from reconnecting.
import assert from 'node:assert/strict'
import { type ClientRequest, get } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { EventSource } from 'eventsource'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { post, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

type Opened = {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
  request: ClientRequest
}

/** GET a URL from a given local address; a 200 stays open (its request is returned to close it). */
function getFrom(localAddress: string, url: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const request = get(url, { localAddress, agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode === 200) return resolve({ status: 200, headers: res.headers, body: undefined, request })
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined, request }),
      )
    })
    request.on('error', (err) => reject(err))
    request.setTimeout(5_000, () => request.destroy(new Error('no answer')))
  })
}

describe('event streams: bounded per client, per intent and in all; 204 when nothing can follow', () => {
  let devnet: Devnet
  let gateway: TestGateway
  const chain = { 'x-chain-id': '31337' }
  before(async () => {
    devnet = await startDevnet()
    // 64 connections, as many per client (every test client is this host); streams: 4 per client, 16 per intent, 20 in all.
    gateway = await startTestGateway({
      chains: [devnet.chain],
      maxConnections: 64,
      receiptTimeoutMs: 200,
      eventStreams: { max: 20 },
    })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('holds every stream allowed, refuses one more at each bound (429 0xF6, Retry-After), and /health still answers 5 of 5 from another address', async () => {
    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    const held: Opened[] = []
    try {
      // Two intents in the pool, not mined: their streams stay open.
      const hashes: string[] = []
      for (const nonce of ['1100', '1101']) {
        const sent = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce }), chain)
        assert.equal(sent.status, 202, sent.text)
        hashes.push(sent.headers.get('x-intent-hash')!)
      }
      const [a, b] = hashes.map((h) => `${gateway.baseUrl}/intents/${h}/events`) as [string, string]
      const open = async (from: string, url: string) => {
        const res = await getFrom(from, url)
        if (res.status === 200) held.push(res)
        return res
      }
      const assertRefused = (res: Opened, detail: RegExp) => {
        assert.equal(res.status, 429, JSON.stringify(res.body))
        assert.equal(res.headers['retry-after'], '5')
        assert.equal(res.headers['x-erc1066-status'], '0xF6')
        assert.equal(res.body.type, 'urn:intent-gateway:problem:too-many-event-streams')
        assert.match(res.body.detail, detail)
      }
      // 4 clients, 4 streams each, of intent a: 16, the most one intent may have.
      for (const from of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) {
        for (let i = 0; i < 4; i++) assert.equal((await open(from, a)).status, 200)
      }
      assertRefused(
        await open('127.0.0.2', b),
        /^this client \(its API key, else its address\) holds as many event streams as one client may \(SSE_MAX_STREAMS_PER_CLIENT\); close one, or retry later$/,
      )
      assertRefused(await open('127.0.0.6', a), /^this intent has as many event streams open as one intent may/)
      for (let i = 0; i < 4; i++) assert.equal((await open('127.0.0.6', b)).status, 200)
      assertRefused(
        await open('127.0.0.7', b),
        /^the gateway has as many event streams open as it serves \(SSE_MAX_STREAMS\)/,
      )
      assert.equal(held.length, 20)

      // The flood of the report: 64 more from each of 9 more addresses, all refused at once.
      const flood = await Promise.all(
        Array.from({ length: 9 * 8 }, (_, i) => open(`127.0.0.${10 + (i % 9)}`, i % 2 ? a : b)),
      )
      assert.deepEqual(
        flood.map((r) => r.status),
        flood.map(() => 429),
      )
      const probes = await Promise.all(
        Array.from({ length: 5 }, () =>
          getFrom('127.0.0.50', `${gateway.baseUrl}/health`).catch((err: Error) => ({ status: err.message })),
        ),
      )
      assert.deepEqual(
        probes.map((p) => p.status),
        [200, 200, 200, 200, 200],
      )

      // A stream that ends frees its slot.
      held.shift()!.request.destroy()
      await new Promise((resolve) => setTimeout(resolve, 500))
      assert.equal((await open('127.0.0.7', b)).status, 200)
    } finally {
      for (const h of held) h.request.destroy()
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    }
  })

  it("answers 204 to a client that has seen a finished intent's last event, so an EventSource stops reconnecting", async () => {
    const sent = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '1102' }), chain)
    // Mined at once (automine), answered 200, or 202 where a loaded machine outlasts this gateway's
    // 200 ms receipt wait (short for the test above): the stream below runs to the end either way.
    assert.ok(sent.status === 200 || sent.status === 202, `${sent.status} ${sent.text}`)
    const url = `${gateway.baseUrl}/intents/${sent.headers.get('x-intent-hash')}/events`
    // The unmodified eventsource package, its requests counted.
    const requests: (string | null)[] = []
    const counted: typeof fetch = (input, init) => {
      requests.push(new Headers(init?.headers).get('last-event-id'))
      return fetch(input, init)
    }
    const source = new EventSource(url, { fetch: counted })
    const types: string[] = []
    for (const type of ['submitted', 'mined', 'final']) source.addEventListener(type, () => types.push(type))
    const closed = new Promise<void>((resolve) => {
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) resolve()
      }
    })
    const outcome = await Promise.race([
      closed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still reconnecting'), 5_000)),
    ])
    source.close()
    assert.equal(outcome, 'closed')
    assert.deepEqual(types, ['submitted', 'mined', 'final'])
    // The first request streams every event; the reconnect names the last one and gets 204.
    assert.equal(requests.length, 2, JSON.stringify(requests))
    assert.equal(requests[0], null)
    assert.match(requests[1] ?? '', /:final:/)

    const again = await fetch(url, { headers: { 'last-event-id': requests[1]! } })
    assert.equal(again.status, 204)
    assert.equal(await again.text(), '')
    // An earlier id still resumes: the events after it.
    const resumed = await fetch(url, { headers: { 'last-event-id': 'not-an-event' } })
    assert.equal(resumed.status, 200)
    assert.match(await resumed.text(), /event: final/)
  })
})
