// Chains without hand-written RPC URLs: discovery from a local stand-in for the chain-list
// registry, its disk cache, viem's fallback, failover between real anvils, chain-id checks.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync } from 'node:fs'
import { createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Anvil, startAnvil } from '../../src/chains/evm/devnet/startAnvil.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { createChainList } from '../../src/chains/evm/discovery/createChainList.ts'
import { resolveChains } from '../../src/chains/evm/discovery/resolveChains.ts'
import type { ChainConfig } from '../../src/config/gatewayConfig.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { json, startHttpServer, type TestServer } from '../support/startHttpServer.ts'
import { demoIntent, post, request, startTestGateway } from '../support/testGateway.ts'

const entryFor = (url: string, extra: object[] = []) => ({
  name: 'Local Anvil',
  chainId: 31337,
  nativeCurrency: { name: 'Test Ether', symbol: 'tETH', decimals: 18 },
  rpc: [
    'https://needs-a-key.example/${API_KEY}',
    'wss://socket.example',
    ...extra,
    { url, tracking: 'none', isOpenSource: true },
  ],
})

function capturingLogger() {
  const lines: string[] = []
  return { lines, logger: createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } }) }
}

describe('chain discovery and endpoints', () => {
  let devnet: Devnet
  let registry: TestServer
  let cacheDir: string
  const addressesOnly = (): ChainConfig => ({ ...devnet.chain, rpcUrls: [] })
  const chainList = (cacheFile: string, url = registry.url) => ({ url, timeoutMs: 1000, ttlMs: 60_000, cacheFile })

  before(async () => {
    devnet = await startDevnet()
    registry = await startHttpServer()
    cacheDir = mkdtempSync(join(tmpdir(), 'chainlist-'))
  })
  after(async () => {
    await registry?.close()
    await devnet?.stop()
  })

  it('resolves a chain configured with addresses only from the registry, and validates through it', async () => {
    registry.handle = json([{ chainId: 1, rpc: ['https://eth.example'] }, entryFor(devnet.anvil.rpcUrl)])
    const cacheFile = join(cacheDir, 'fresh.json')
    const gateway = await startTestGateway({ chains: [addressesOnly()], chainList: chainList(cacheFile) })
    try {
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))
      assert.equal(res.status, 200)
      assertCommonHeaders(res, { status: '0x01' })
      const chains = await request(gateway.baseUrl, '/chains')
      assert.equal(chains.status, 200)
      const chain = chains.body.chains[0]
      assert.equal(chain.chainId, 'eip155:31337')
      assert.equal(chain.name, 'Local Anvil')
      assert.deepEqual(chain.nativeCurrency, { name: 'Test Ether', symbol: 'tETH', decimals: 18 })
      assert.deepEqual(chain.contracts, {
        validator: devnet.contracts.validator,
        executor: devnet.contracts.executor,
        registry: devnet.contracts.registry,
        accountDelegate: devnet.contracts.accountDelegate,
      })
      assert.equal(chain.endpoints.length, 1, 'placeholder and websocket URLs are skipped')
      assert.equal(chain.endpoints[0].source, 'chainlist')
      assert.equal(chain.endpoints[0].status, 'healthy')
      assert.ok(gateway.logs.some((l) => l.includes('"msg":"endpoints for eip155:31337 from chainlist"')))
      assert.ok(existsSync(cacheFile), 'the registry is cached on disk')

      const one = await request(gateway.baseUrl, '/chains/31337')
      assert.equal(one.body.chainId, 'eip155:31337')
      const unknown = await request(gateway.baseUrl, '/chains/eip155:8453')
      assert.equal(unknown.status, 421)
      assertCommonHeaders(unknown, { status: '0xA2', chainId: 'eip155:8453' })
      const malformed = await request(gateway.baseUrl, '/chains/base')
      assert.equal(malformed.status, 400)
      assert.equal(malformed.body.errors[0].field, 'chainId')
    } finally {
      await gateway.close()
    }
  })

  it('still serves from the disk cache when the registry is down at start-up', async () => {
    registry.handle = json([entryFor(devnet.anvil.rpcUrl)])
    const cacheFile = join(cacheDir, 'warm.json')
    await (await startTestGateway({ chains: [addressesOnly()], chainList: chainList(cacheFile) })).close()

    registry.handle = (_req, res) => res.writeHead(503).end('down')
    const gateway = await startTestGateway({ chains: [addressesOnly()], chainList: chainList(cacheFile) })
    try {
      assert.equal((await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))).status, 200)
      const chains = await request(gateway.baseUrl, '/chains')
      assert.equal(chains.body.chains[0].endpoints[0].source, 'chainlist-cache')
      assert.ok(gateway.logs.some((l) => l.includes('chain-list registry unavailable') && l.includes('HTTP 503')))
    } finally {
      await gateway.close()
    }
  })

  it("falls back to viem's chain definitions with neither registry nor cache (without calling them)", async () => {
    const { lines, logger } = capturingLogger()
    const list = createChainList({
      url: 'http://127.0.0.1:9/rpcs.json',
      timeoutMs: 500,
      ttlMs: 0,
      cacheFile: join(cacheDir, 'none.json'),
      logger,
    })
    const baseSepolia: ChainConfig = { ...devnet.chain, chainId: 'eip155:84532', reference: '84532', rpcUrls: [] }
    const [resolved] = await resolveChains({ chains: [baseSepolia], chainList: list, logger })
    assert.deepEqual(resolved!.endpoints, [{ url: 'https://sepolia.base.org', source: 'viem' }])
    assert.equal(resolved!.name, 'Base Sepolia')
    assert.ok(lines.some((l) => l.includes('"msg":"endpoints for eip155:84532 from viem"')))
    assert.ok(lines.some((l) => l.includes('no usable chain-list cache')))
  })

  it('survives malformed registry documents with a clear log line', async () => {
    const cases: Array<[string, (req: any, res: any) => void, RegExp]> = [
      ['not JSON', json('<html>'), /the document is not JSON/],
      ['an object', json({ chains: [] }), /not a JSON array of chains \(got object\)/],
      ['too big', json(JSON.stringify([entryFor('http://x.example')]).padEnd(5000, ' ')), /over the 2000-byte limit/],
      ['too slow', (_req, res) => setTimeout(() => json([])(_req, res), 1500), /aborted|timeout/i],
    ]
    for (const [what, handle, message] of cases) {
      registry.handle = handle
      const { lines, logger } = capturingLogger()
      const list = createChainList({
        url: registry.url,
        timeoutMs: 300,
        ttlMs: 0,
        cacheFile: join(cacheDir, `${what}.json`),
        maxBytes: 2000,
        logger,
      })
      assert.equal(await list.find(31337), undefined, what)
      assert.ok(
        lines.some((l) => l.includes('chain-list registry unavailable') && message.test(l)),
        `${what}: ${lines.join('\n')}`,
      )
    }
    // Wrong shapes inside an array are skipped, the rest is used.
    registry.handle = json([{ chainId: 'x' }, 17, entryFor(devnet.anvil.rpcUrl)])
    const { lines, logger } = capturingLogger()
    const list = createChainList({
      url: registry.url,
      timeoutMs: 1000,
      ttlMs: 0,
      cacheFile: join(cacheDir, 'mixed.json'),
      logger,
    })
    assert.equal((await list.find(31337))?.entry.name, 'Local Anvil')
    assert.ok(lines.some((l) => l.includes('"skipped":2')))
  })

  it('never shows what an endpoint answered with an error, in /chains or the log', async () => {
    const inner = await startHttpServer()
    inner.handle = (_req, res) =>
      res.writeHead(500, { 'content-type': 'text/plain' }).end('admin console: password=hunter2-inner')
    const adminUrl = inner.url.replace('/rpcs.json', '/internal/admin')
    registry.handle = json([entryFor(adminUrl)])
    const gateway = await startTestGateway({
      chains: [addressesOnly()],
      chainList: chainList(join(cacheDir, 'inner.json')),
    })
    try {
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))
      assert.equal(res.status, 503)
      assert.ok(inner.requests > 0, 'outside production a discovered local endpoint is tried')
      const chains = await request(gateway.baseUrl, '/chains')
      assert.equal(chains.body.chains[0].endpoints[0].status, 'failing')
      assert.equal(chains.body.chains[0].endpoints[0].lastError, 'the endpoint answered HTTP 500')
      for (const text of [
        chains.text,
        res.text,
        (await request(gateway.baseUrl, '/health')).text,
        gateway.logs.join('\n'),
      ])
        assert.ok(!text.includes('hunter2-inner'), text.slice(0, 300))
    } finally {
      await gateway.close()
      await inner.close()
    }
  })

  it('in production, never connects to a discovered endpoint that is not https or resolves to a private address, and executes only through RPC_URLS', async () => {
    const inner = await startHttpServer()
    // A TCP listener that counts connections: a TLS endpoint on localhost would be reached here.
    let connections = 0
    const tcp = createTcpServer((socket) => {
      connections++
      socket.destroy()
    })
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
    const tlsPort = (tcp.address() as { port: number }).port
    registry.handle = json([
      entryFor(inner.url.replace('/rpcs.json', '/internal/admin'), [
        { url: `https://localhost:${tlsPort}/rpc`, tracking: 'none' },
        { url: 'https://10.1.2.3/rpc', tracking: 'none' },
        { url: 'https://[::ffff:127.0.0.1]:1/rpc', tracking: 'none' },
      ]),
    ])
    const gateway = await startTestGateway({
      production: true,
      chains: [addressesOnly()],
      chainList: chainList(join(cacheDir, 'production.json')),
    })
    try {
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))
      assert.equal(res.status, 503)
      assertCommonHeaders(res, { status: '0xF4' })
      assert.equal(inner.requests, 0, 'the plain-http endpoint was never called')
      assert.equal(connections, 0, 'no connection was opened to an address that resolves to loopback')
      const chain = (await request(gateway.baseUrl, '/chains')).body.chains[0]
      const byUrl = Object.fromEntries(
        chain.endpoints.map((e: { url: string }) => [e.url.replace(/:\d+\//, ':port/'), e]),
      )
      assert.equal(byUrl['http://127.0.0.1:port/internal/admin'].status, 'refused')
      assert.equal(
        byUrl['http://127.0.0.1:port/internal/admin'].lastError,
        'discovered endpoints must use https in production',
      )
      assert.equal(byUrl['https://10.1.2.3/rpc'].status, 'refused')
      assert.equal(
        byUrl['https://10.1.2.3/rpc'].lastError,
        'discovered endpoints must not be at a loopback, private or link-local address in production (10.1.2.3)',
      )
      assert.equal(byUrl['https://[::ffff:7f00:1]:port/rpc'].status, 'refused')
      assert.equal(byUrl['https://localhost:port/rpc'].status, 'failing', 'a host name is checked on every connection')
      assert.match(
        byUrl['https://localhost:port/rpc'].lastError,
        /^localhost resolves to a loopback, private or link-local address \((127\.0\.0\.1|::1)\)/,
      )

      // Discovered endpoints may lie: on such a chain the production gateway does not execute.
      assert.equal(chain.relayer, undefined)
      const execute = await post(gateway.baseUrl, '/intents/execute', demoIntent(devnet))
      assert.equal(execute.status, 501)
      assert.ok(
        gateway.logs.some((l) => l.includes('"level":40') && l.includes('read-only: it has no RPC_URLS')),
        'the start-up log says so',
      )
    } finally {
      await gateway.close()
      await inner.close()
      await new Promise((resolve) => tcp.close(resolve))
    }
  })

  it("in production, still uses a configured RPC URL on loopback (the operator's choice) and executes through it", async () => {
    const gateway = await startTestGateway({
      production: true,
      relayerPrivateKey: devnetAccounts.relayer,
      chains: [devnet.chain],
    })
    try {
      assert.equal((await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))).status, 200)
      const chain = (await request(gateway.baseUrl, '/chains')).body.chains[0]
      assert.equal(chain.endpoints[0].status, 'healthy')
      assert.ok(chain.relayer)
    } finally {
      await gateway.close()
    }
  })

  it('refuses an endpoint that serves another chain, and fails over past it', async () => {
    const other: Anvil = await startAnvil({ chainId: 999 })
    try {
      const gateway = await startTestGateway({
        chains: [{ ...devnet.chain, rpcUrls: [other.rpcUrl, devnet.anvil.rpcUrl] }],
      })
      try {
        assert.equal((await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))).status, 200)
        const endpoints = (await request(gateway.baseUrl, '/chains')).body.chains[0].endpoints
        assert.equal(endpoints[0].status, 'wrong-chain')
        assert.equal(endpoints[0].lastError, 'reports chain id 999, expected 31337')
        assert.equal(endpoints[1].status, 'healthy')
        assert.ok(
          gateway.logs.some(
            (l) =>
              l.includes('"level":50') && l.includes('RPC endpoint refused: it serves chain 999, not eip155:31337'),
          ),
        )
      } finally {
        await gateway.close()
      }
      const only = await startTestGateway({ chains: [{ ...devnet.chain, rpcUrls: [other.rpcUrl] }] })
      try {
        const res = await post(only.baseUrl, '/intents/validate', demoIntent(devnet))
        assert.equal(res.status, 503)
        assertCommonHeaders(res, { status: '0xF4' })
        assert.equal(res.body.detail, 'every RPC endpoint serves another chain')
      } finally {
        await only.close()
      }
    } finally {
      await other.stop()
    }
  })

  it('keeps serving when one of two nodes stops, and uses it again once it is back', async () => {
    // Two nodes with the same contracts at the same addresses (same deployer, same nonces).
    const first = await startDevnet()
    const second = await startDevnet()
    assert.deepEqual(first.contracts, second.contracts)
    let restarted: Devnet | undefined
    const gateway = await startTestGateway({
      chains: [{ ...first.chain, rpcUrls: [first.anvil.rpcUrl, second.anvil.rpcUrl] }],
    })
    const endpoints = async () => (await request(gateway.baseUrl, '/chains')).body.chains[0].endpoints
    const validate = () => post(gateway.baseUrl, '/intents/validate', demoIntent(first))
    try {
      for (let i = 0; i < 5; i++) assert.equal((await validate()).status, 200)
      const servedFirst = (await endpoints())[0].requests
      assert.ok(servedFirst > 0)

      await first.stop()
      for (let i = 0; i < 10; i++) assert.equal((await validate()).status, 200, 'requests keep succeeding')
      const down = await endpoints()
      assert.equal(down[0].status, 'failing')
      assert.ok(down[1].requests > 0)

      restarted = await startDevnet({ port: first.anvil.port })
      assert.deepEqual(restarted.contracts, first.contracts)
      await new Promise((r) => setTimeout(r, 1100)) // the first cooldown
      for (let i = 0; i < 5; i++) assert.equal((await validate()).status, 200)
      const back = await endpoints()
      assert.equal(back[0].status, 'healthy', 'the restarted node is used again')
      assert.ok(back[0].requests > servedFirst)
      assert.ok(gateway.logs.some((l) => l.includes('RPC endpoint answers again')))
    } finally {
      await gateway.close()
      await restarted?.stop()
      await first.stop()
      await second.stop()
    }
  })

  it('sends URL credentials as Basic authorization and never shows them, nor a key in a path segment', async () => {
    const secretUrl = `${devnet.anvil.rpcUrl.replace('http://', 'http://agent:hunter2@')}/?apikey=k3yk3yk3y`
    // A provider that takes its key as a path segment (base64 with padding): a local proxy to anvil.
    const pathKey = 'c2VjcmV0LWtleS0xMjM0NQ=='
    const proxy = await startHttpServer()
    proxy.handle = (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        if (req.url !== `/v2/${pathKey}`) return void res.writeHead(404).end()
        fetch(devnet.anvil.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        })
          .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()))
          .catch(() => res.writeHead(502).end())
      })
    }
    const pathKeyUrl = proxy.url.replace('/rpcs.json', `/v2/${pathKey}`)
    const gateway = await startTestGateway({ chains: [{ ...devnet.chain, rpcUrls: [secretUrl, pathKeyUrl] }] })
    try {
      assert.equal((await post(gateway.baseUrl, '/intents/validate', demoIntent(devnet))).status, 200)
      const chains = await request(gateway.baseUrl, '/chains')
      assert.equal(
        chains.body.chains[0].endpoints[0].url,
        `${devnet.anvil.rpcUrl.replace('http://', 'http://***@')}/?apikey=***`,
      )
      assert.equal(chains.body.chains[0].endpoints[1].url, proxy.url.replace('/rpcs.json', '/v2/***'))
      for (const secret of ['hunter2', 'k3yk3yk3y', pathKey, 'c2VjcmV0LWtleS0xMjM0']) {
        assert.ok(!chains.text.includes(secret), secret)
        assert.ok(!gateway.logs.join('\n').includes(secret), secret)
      }
      // The start-up log names the endpoint, redacted.
      assert.ok(gateway.logs.some((l) => l.includes('/v2/***')))
    } finally {
      await gateway.close()
      await proxy.close()
    }
  })
})
