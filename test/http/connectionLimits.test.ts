// One client cannot take every connection: a cap per client address at accept, health probes from
// others answered during a flood of idle connections, X-Forwarded-For believed only from the
// trusted proxies (whose connections are not capped per address). All traffic stays on 127.0.0.0/8:
// 127.0.0.1 and 127.0.0.2 are two clients.

import assert from 'node:assert/strict'
import { get, type IncomingHttpHeaders } from 'node:http'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { localKey } from '../support/relayerKeys.ts'
import { testConfig } from '../support/testConfig.ts'

type Started = Gateway & { port: number; logs: string[] }

/** A gateway with the connection settings under test (startTestGateway does not take them). */
async function startGateway(
  devnet: Devnet,
  settings: {
    maxConnections: number
    maxConnectionsPerClient: number
    idleTimeoutMs?: number
    trustedProxies?: string[]
    rateLimit?: { max: number; windowMs: number }
  },
): Promise<Started> {
  const logs: string[] = []
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })
  const gateway = await createGateway({
    config: testConfig({
      chains: [devnet.chain],
      keys: { evm: [localKey(devnetAccounts.relayer, 'RELAYER_PRIVATE_KEY')] },
      server: {
        maxConnections: settings.maxConnections,
        maxConnectionsPerClient: settings.maxConnectionsPerClient,
        ...(settings.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: settings.idleTimeoutMs }),
        ...(settings.trustedProxies ? { trustedProxies: settings.trustedProxies } : {}),
      },
      rpc: { timeoutMs: 2_000, pollMs: 20 },
      execution: { receiptTimeoutMs: 10_000 },
      ...(settings.rateLimit ? { rateLimit: settings.rateLimit } : {}),
    }),
    logger,
  })
  await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...gateway, port: (gateway.app.server.address() as { port: number }).port, logs }
}

/** One GET from a given local address, with its own connection; an error (reset, refused, 4 s) is the answer. */
function getFrom(localAddress: string, port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; text: string } | { error: string }>((resolve) => {
    const req = get({ host: '127.0.0.1', port, path, localAddress, agent: false, headers, timeout: 4_000 }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
      res.on('error', (err) => resolve({ error: err.message }))
    })
    req.on('timeout', () => req.destroy(new Error('no answer in 4 s')))
    req.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }))
  })
}

/**
 * An idle connection from `localAddress`; resolves when it closes (by the gateway, or after 8 s by
 * us) with how long it lived and whether it connected. It is in `sockets` while it is open.
 */
function idleFrom(localAddress: string, port: number, sockets?: Set<Socket>) {
  return new Promise<{ ms: number; connected: boolean }>((resolve) => {
    const started = performance.now()
    let connected = false
    const socket = connect({ host: '127.0.0.1', port, localAddress }, () => (connected = true))
    sockets?.add(socket)
    socket.on('error', () => undefined)
    socket.setTimeout(8_000, () => socket.destroy())
    socket.on('close', () => {
      sockets?.delete(socket)
      resolve({ ms: performance.now() - started, connected })
    })
  })
}

const toHeaders = (headers: IncomingHttpHeaders) =>
  new Headers(
    Object.entries(headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as [string, string]])),
  )
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('connection limits per client', () => {
  let devnet: Devnet
  before(async () => {
    devnet = await startDevnet()
  })
  after(async () => {
    await devnet?.stop()
  })

  it('keeps /health and /health/ready answering another client while one address floods idle connections', async () => {
    const maxConnectionsPerClient = 64
    const gateway = await startGateway(devnet, { maxConnections: 512, maxConnectionsPerClient, idleTimeoutMs: 5_000 })
    // 600 slots from 127.0.0.1, each reopening its connection as soon as it is closed (after a
    // short pause, to spare the machine), until the probes are done; at most 40 rounds each.
    let flooding = true
    let opened = 0
    let closedAtOnce = 0
    const open = new Set<Socket>()
    const slot = async () => {
      for (let round = 0; round < 40 && flooding; round++) {
        const { ms, connected } = await idleFrom('127.0.0.1', gateway.port, open)
        if (connected) opened++
        if (connected && ms < 300) closedAtOnce++
        if (flooding) await wait(250)
      }
    }
    const flood = Array.from({ length: 600 }, slot)
    try {
      await wait(1_000)
      // The gateway holds no more than the flooder's cap (and the probe's connection).
      const connections = () =>
        new Promise<number>((resolve, reject) =>
          gateway.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
        )
      const held = await connections()
      const probes = []
      for (let i = 0; i < 6; i++) {
        for (const path of ['/health', '/health/ready'])
          probes.push({ path, answer: await getFrom('127.0.0.2', gateway.port, path) })
        await wait(200)
      }
      const heldAfter = await connections()
      flooding = false
      for (const { path, answer } of probes) {
        assert.ok('status' in answer, `${path} from another client: ${'error' in answer ? answer.error : ''}`)
        assert.equal(answer.status, 200, `${path}: ${answer.text.slice(0, 200)}`)
        assertCommonHeaders(
          {
            status: answer.status,
            headers: toHeaders(answer.headers),
            body: JSON.parse(answer.text),
            text: answer.text,
          },
          { status: '0x01' },
        )
      }
      assert.ok(opened >= 600, `the flood opened ${opened} connections`)
      assert.ok(
        held <= maxConnectionsPerClient + 1 && heldAfter <= maxConnectionsPerClient + 1,
        `the gateway held ${held}, then ${heldAfter} connections (cap ${maxConnectionsPerClient})`,
      )
      assert.ok(closedAtOnce >= 500, `the flooder's excess connections are closed at once (${closedAtOnce})`)
      assert.ok(
        gateway.logs.some((l) => l.includes('connection limit per client reached')),
        'the refusals are logged',
      )
      // At most once every 10 s: on a loaded machine the flood can outlast 10 s and log again.
      const loggedAt = gateway.logs
        .filter((l) => l.includes('connection limit per client reached'))
        .map((l) => (JSON.parse(l) as { time: number }).time)
      for (let i = 1; i < loggedAt.length; i++)
        assert.ok(loggedAt[i]! - loggedAt[i - 1]! >= 10_000, `logged again after ${loggedAt[i]! - loggedAt[i - 1]!} ms`)
    } finally {
      flooding = false
      for (const s of open) s.destroy()
      await Promise.all(flood)
      await gateway.close()
    }
  })

  it("believes X-Forwarded-For from a trusted proxy only, and does not cap a trusted proxy's connections", async () => {
    const gateway = await startGateway(devnet, {
      maxConnections: 512,
      maxConnectionsPerClient: 4,
      trustedProxies: ['127.0.0.1/32'],
      rateLimit: { max: 1, windowMs: 60_000 },
    })
    // The rate limit counts per client key: a second request under the same key is 429.
    const path = `/intents/0x${'ab'.repeat(32)}`
    const status = async (from: string, forwardedFor: string) => {
      const answer = await getFrom(from, gateway.port, path, { 'x-forwarded-for': forwardedFor })
      assert.ok('status' in answer, 'error' in answer ? answer.error : '')
      return answer.status
    }
    try {
      // From an untrusted peer, the forwarded address is ignored: both requests are 127.0.0.2's.
      assert.notEqual(await status('127.0.0.2', '198.51.100.1'), 429)
      assert.equal(
        await status('127.0.0.2', '198.51.100.2'),
        429,
        'X-Forwarded-For from an untrusted peer does not make a new client',
      )
      // From the trusted proxy, each forwarded address is its own client.
      assert.notEqual(await status('127.0.0.1', '198.51.100.1'), 429)
      assert.notEqual(
        await status('127.0.0.1', '198.51.100.2'),
        429,
        'another forwarded client behind the trusted proxy',
      )
      assert.notEqual(
        await status('127.0.0.1', '203.0.113.9, 198.51.100.3'),
        429,
        'the address the proxy saw, not what the client claimed',
      )
      assert.equal(await status('127.0.0.1', '203.0.113.9, 198.51.100.1'), 429, 'the same forwarded client again')

      // At the socket level: the proxy's connections are not capped per address, another peer's are.
      const proxy = Array.from({ length: 10 }, () => idleFrom('127.0.0.1', gateway.port))
      const other = Array.from({ length: 10 }, () => idleFrom('127.0.0.2', gateway.port))
      await wait(500)
      gateway.app.server.closeAllConnections()
      const proxyLived = (await Promise.all(proxy)).map((r) => r.ms)
      const otherLived = (await Promise.all(other)).map((r) => r.ms)
      assert.equal(
        proxyLived.filter((ms) => ms < 300).length,
        0,
        `the trusted proxy's connections stay open: ${proxyLived.map(Math.round)}`,
      )
      assert.equal(
        otherLived.filter((ms) => ms < 300).length,
        6,
        `another peer's connections over 4 are closed at once: ${otherLived.map(Math.round)}`,
      )
    } finally {
      await gateway.close()
    }
  })
})
