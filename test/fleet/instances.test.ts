// Several gateways sharing one PostgreSQL journal and one Redis, on one anvil: each intent executed
// exactly once whichever instance gets it, a rate limit that holds across instances, and a
// journal database that goes away (503, nothing sent without its record).
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { type Hex, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { post, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
/** anvil's accounts 7, 8 and 9: funded, used by nothing else in the devnet. */
const relayerKeys = [7, 8, 9].map((addressIndex) =>
  toHex(
    mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex }).getHdKey()
      .privateKey!,
  ),
)

describe('several gateway instances on one PostgreSQL journal and one Redis', () => {
  let devnet: Devnet
  let database: TestDatabase
  const gateways: TestGateway[] = []
  const start = async (params: Omit<Parameters<typeof startTestGateway>[0], 'chains'>) => {
    const gateway = await startTestGateway({ chains: [devnet.chain], ...params })
    gateways.push(gateway)
    return gateway
  }

  before(async () => {
    database = await createTestDatabase('instances')
    devnet = await startDevnet({ blockTime: 1 })
  })
  after(async () => {
    for (const g of gateways) await g.close().catch(() => {})
    await devnet?.stop()
    await database?.drop()
  })

  it('executes each of 300 concurrent signed intents, spread over three instances, exactly once, with no nonce error', async () => {
    // 600 requests at once to three gateways in this one process: on a busy machine reading them
    // all takes longer than the 30 s request timeout, and a request cut at the timeout, its body
    // unread, is a connection reset. Two minutes, so that only a gateway that never reads fails.
    const three = await Promise.all(
      relayerKeys.map((key, i) =>
        start({
          relayerPrivateKey: key,
          storageOptions: { postgres: { url: database.url } },
          storage: { redisUrl: undefined, instanceId: `gw-${i}` },
          receiptTimeoutMs: 60_000,
          requestTimeoutMs: 120_000,
        }),
      ),
    )
    const bodies = await Promise.all(
      Array.from({ length: 300 }, (_, i) => signedIntent(devnet, { nonce: String(10_000 + i) })),
    )
    const fromBlock = await createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId).publicClient.getBlockNumber()
    // Every intent is sent to two instances at once: the journal lets one of them run it.
    const answers = await Promise.all(
      bodies.flatMap((b, i) => [
        post(three[i % 3]!.baseUrl, '/intents/execute', b),
        post(three[(i + 1) % 3]!.baseUrl, '/intents/execute', b),
      ]),
    )
    const byIntent = new Map<string, Array<{ status: number; replayed: boolean }>>()
    for (const a of answers)
      byIntent.set(a.headers.get('x-intent-hash')!, [
        ...(byIntent.get(a.headers.get('x-intent-hash')!) ?? []),
        { status: a.status, replayed: a.body?.replayed === true },
      ])
    assert.equal(byIntent.size, 300)
    for (const [hash, answered] of byIntent) {
      const statuses = JSON.stringify(answered)
      // One request sends it; the other replays its outcome (200 once mined, 202 while in flight).
      assert.deepEqual(answered.filter((a) => a.status === 200 && !a.replayed).length, 1, `${hash}: ${statuses}`)
      assert.ok(
        answered.every((a) => (a.status === 200 || a.status === 202) && (a.status === 202 ? a.replayed : true)),
        `${hash}: ${statuses}`,
      )
    }
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
    const executions = new Map<string, number>()
    for (const log of logs)
      executions.set(log.args.intentHash as string, (executions.get(log.args.intentHash as string) ?? 0) + 1)
    assert.equal(executions.size, 300)
    assert.ok(
      [...executions.values()].every((n) => n === 1),
      'each intent executed exactly once',
    )
    // Each instance sent with its own key: all three took part.
    const senders = new Set(
      await Promise.all(
        logs
          .slice(0, 300)
          .map(async (l) => (await publicClient.getTransaction({ hash: l.transactionHash })).from.toLowerCase()),
      ),
    )
    assert.equal(senders.size, 3)
    const health = (await request(three[0]!.baseUrl, '/health')).body
    assert.deepEqual(health.instance, { id: 'gw-0', journal: 'postgres', rateLimits: 'off' })
    assert.equal(health.journal.pendingExecutions, 0)
  })

  it('counts the rate limit in Redis, across instances: the request over the limit is refused whichever instance gets it', async () => {
    // This run's own prefix: a live gateway's counts (or another run's) on the same Redis are never read or reset.
    const redisPrefix = `test:instances:${randomBytes(6).toString('hex')}:`
    const storage = { redisUrl, redisPrefix, instanceId: 'limited' }
    const storageOptions = { postgres: { url: database.url } }
    const two = [
      await start({ storageOptions, storage, rateLimit: { max: 5, windowMs: 60_000 } }),
      await start({ storageOptions, storage, rateLimit: { max: 5, windowMs: 60_000 } }),
    ]
    const body = await signedIntent(devnet, { nonce: '1' })
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) statuses.push((await post(two[i % 2]!.baseUrl, '/intents/validate', body)).status)
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429])
    assert.equal((await request(two[1]!.baseUrl, '/health')).body.instance.rateLimits, 'redis')
    const redis = new Redis(redisUrl)
    try {
      const counted = await redis.keys(`${redisPrefix}*`)
      assert.equal(counted.length, 1, counted.join(', '))
      assert.match(counted[0]!, new RegExp(`^${redisPrefix}rate-limit:ip:`))
      for (const key of counted) await redis.del(key)
    } finally {
      await redis.quit()
    }
  })

  it('serves while Redis is unreachable (the limit is skipped, not every request refused)', async () => {
    const gateway = await start({
      storage: { redisUrl: 'redis://127.0.0.1:9', instanceId: 'no-redis' },
      rateLimit: { max: 1, windowMs: 60_000 },
    })
    const body = await signedIntent(devnet, { nonce: '2' })
    const statuses = [
      (await post(gateway.baseUrl, '/intents/validate', body)).status,
      (await post(gateway.baseUrl, '/intents/validate', body)).status,
    ]
    assert.deepEqual(statuses, [200, 200])
    assert.equal((await request(gateway.baseUrl, '/health')).body.instance.rateLimits, 'redis')
  })

  it('answers 503 (0x40) and sends nothing while the journal database is unreachable; /health/ready says so, /health still answers', async () => {
    const proxy = await startTcpProxy(new URL(database.url))
    const url = new URL(database.url)
    url.host = `127.0.0.1:${proxy.port}`
    const gateway = await start({
      relayerPrivateKey: relayerKeys[0] as Hex,
      storageOptions: { postgres: { url: url.toString() } },
      storage: { redisUrl: undefined, instanceId: 'cut' },
    })
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const relayer = mnemonicToAccount('test test test test test test test test test test test junk', {
      addressIndex: 7,
    }).address
    assert.equal((await request(gateway.baseUrl, '/health/ready')).status, 200)
    proxy.cut()
    const nonceBefore = await publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })
    const res = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '20000' }))
    assert.equal(res.status, 503, res.text)
    assert.equal(res.headers.get('x-erc1066-status'), '0x40')
    assert.equal(res.headers.get('retry-after'), '5')
    assert.match(res.body.title, /journal database is unreachable/)
    assert.ok(!res.text.includes(database.url), 'no database URL in the answer')
    const ready = await request(gateway.baseUrl, '/health/ready')
    assert.equal(ready.status, 503)
    assert.equal(ready.headers.get('x-erc1066-status'), '0x40')
    const health = await request(gateway.baseUrl, '/health')
    assert.equal(health.status, 200)
    assert.equal(health.body.journal.reachable, false)
    assert.equal(
      await publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }),
      nonceBefore,
      'nothing sent',
    )
    proxy.close()
  })
})

/** A TCP proxy to the database that the test can cut: open connections dropped, new ones refused. */
async function startTcpProxy(target: URL): Promise<{ port: number; cut(): void; close(): void }> {
  const sockets = new Set<Socket>()
  let cut = false
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy()
      return
    }
    const upstream = connect(Number(target.port || 5432), target.hostname)
    sockets.add(client).add(upstream)
    client.pipe(upstream).pipe(client)
    const drop = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut = true
      for (const s of sockets) s.destroy()
      server.close()
    },
    close() {
      server.close()
    },
  }
}
