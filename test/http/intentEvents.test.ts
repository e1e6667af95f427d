// GET /intents/{intentHash}/events: an execution's states pushed as server-sent events, from the
// journal: live while it is mined, resumed after Last-Event-ID, from another instance that shares
// the journal, 404 for an intent never sent. Against anvil, through real HTTP.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import {
  post,
  request,
  rpc,
  signedIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

type Received = { id: string; event: string; data: Record<string, unknown> }

/** Reads a server-sent event stream to its end (or until `stopAfter` events), parsing each event. */
async function readEvents(
  url: string,
  headers: Record<string, string> = {},
  onEvent?: (e: Received) => void | Promise<void>,
): Promise<{ status: number; headers: Headers; events: Received[] }> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } })
  const events: Received[] = []
  if (res.status !== 200) return { status: res.status, headers: res.headers, events }
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let end
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => l && !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
      )
      if (fields.data === undefined) continue
      const event = { id: fields.id!, event: fields.event!, data: JSON.parse(fields.data) as Record<string, unknown> }
      events.push(event)
      await onEvent?.(event)
    }
  }
  return { status: res.status, headers: res.headers, events }
}

describe('execution events (server-sent events from the journal)', () => {
  let world: World
  let database: TestDatabase
  let a: TestGateway
  let b: TestGateway
  const chain = { 'x-chain-id': '31337' }

  before(async () => {
    world = await startWorld()
    database = await createTestDatabase('events')
    // Two instances on one journal, each with its own relayer key.
    a = await startTestGateway({
      chains: [world.devnet.chain],
      storageOptions: { postgres: { url: database.url } },
      storage: { redisUrl: undefined, instanceId: 'a' },
      receiptTimeoutMs: 200,
    })
    b = await startTestGateway({
      chains: [world.devnet.chain],
      storageOptions: { postgres: { url: database.url } },
      storage: { redisUrl: undefined, instanceId: 'b' },
      relayerPrivateKey: devnetAccounts.other,
    })
  })
  after(async () => {
    await a?.close()
    await b?.close()
    await world?.stop()
    await database?.drop()
  })

  it('streams submitted, then mined and final as they happen, and ends; another instance streams the same ids; Last-Event-ID resumes', async () => {
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    let sent
    try {
      sent = await post(a.baseUrl, '/intents/execute', await signedIntent(world.devnet, { nonce: '900' }), chain)
      assert.equal(sent.status, 202, sent.text)
      const intentHash = sent.headers.get('x-intent-hash')!
      // Live: the first event arrives while the transaction waits in the pool; the block is mined after it.
      const live = await readEvents(`${a.baseUrl}/intents/${intentHash}/events`, {}, async (e) => {
        if (e.event === 'submitted') await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      })
      assert.equal(live.status, 200)
      assert.match(live.headers.get('content-type') ?? '', /^text\/event-stream/)
      assertCommonHeaders(
        { status: live.status, headers: live.headers, body: undefined, text: '' },
        { status: '0x01', intentHash },
      )
      assert.deepEqual(
        live.events.map((e) => e.event),
        ['submitted', 'mined', 'final'],
      )
      const minedEvent = live.events[1]!.data
      assert.deepEqual(
        {
          type: minedEvent.type,
          intentHash: minedEvent.intentHash,
          chainId: minedEvent.chainId,
          state: minedEvent.state,
          transactionHash: minedEvent.transactionHash,
          attempt: minedEvent.attempt,
        },
        {
          type: 'mined',
          intentHash,
          chainId: 'eip155:31337',
          state: 'mined',
          transactionHash: sent.body.transactionHash,
          attempt: 1,
        },
      )
      assert.match(String(minedEvent.blockNumber), /^[0-9]+$/)
      assert.ok(!Number.isNaN(Date.parse(String(minedEvent.at))))
      for (const e of live.events) assert.equal(e.data.id, e.id)

      // Another instance, from the shared journal: the same events with the same ids.
      const elsewhere = await readEvents(`${b.baseUrl}/intents/${intentHash}/events`)
      assert.deepEqual(
        elsewhere.events.map((e) => e.id),
        live.events.map((e) => e.id),
      )
      // Resumed after the first: the rest only.
      const resumed = await readEvents(`${b.baseUrl}/intents/${intentHash}/events`, {
        'last-event-id': live.events[0]!.id,
      })
      assert.deepEqual(
        resumed.events.map((e) => e.event),
        ['mined', 'final'],
      )
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
  })

  it('answers 404 (0xA0) with the common headers for an intent this gateway never sent', async () => {
    const res = await request(a.baseUrl, `/intents/0x${'ab'.repeat(32)}/events`)
    assert.equal(res.status, 404)
    assertCommonHeaders(res, { status: '0xA0' })
    assert.deepEqual(res.body.errors, [
      { field: 'intentHash', message: 'no execution of this intent was sent by this gateway' },
    ])
  })
})
