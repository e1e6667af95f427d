// Redis lost under a fleet (issue 43, item 2): two gateways on one PostgreSQL journal count
// standing and budgets in Redis, reached through a TCP relay of the test's that it cuts and heals.
// While it is cut, the rate limits stay open (as the README says: no 429 comes of the outage), and
// each instance counts the budgets in its own memory held to its part of each limit (1/N of N
// live instances): never unbounded, as it was (the counts were skipped). Healed, the counts of the
// outage are in Redis and the shared limit applies again. Against anvil.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { startTcpStall, type TcpStall } from '../../bench/chaos/tcpStall.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import { eventually } from '../support/eventually.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { post, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
/** anvil's accounts 7 and 8: funded, used by nothing else in the devnet. */
const relayerKeys = [7, 8].map((addressIndex) =>
  toHex(
    mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex }).getHdKey()
      .privateKey!,
  ),
)

describe('a fleet that loses Redis: rate limits open, budgets held to each instance’s part', () => {
  let devnet: Devnet
  let database: TestDatabase
  let link: TcpStall
  const prefix = `test:redis-down:${randomBytes(6).toString('hex')}:`
  const gateways: TestGateway[] = []
  let nonce = 40_000

  before(async () => {
    database = await createTestDatabase('redisdown')
    devnet = await startDevnet()
    const target = new URL(redisUrl)
    link = await startTcpStall({ host: target.hostname, port: Number(target.port || 6379) })
  })
  after(async () => {
    for (const g of gateways) await g.close().catch(() => {})
    await link?.close()
    const redis = new Redis(redisUrl)
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
    await devnet?.stop()
    await database?.drop()
  })

  const execute = async (gateway: TestGateway) =>
    post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: String(nonce++) }))

  it('refuses at about half the gas budget on one instance of two while Redis is cut, never 429 for the rate limit; healed, the outage counts in the shared budget', async () => {
    // One execute's fee, measured on a gateway without limits (the same intent shape).
    const probe = await startTestGateway({
      chains: [devnet.chain],
      relayerPrivateKey: relayerKeys[0],
      storageOptions: { postgres: { url: database.url } },
      storage: { redisUrl: undefined, instanceId: 'probe' },
    })
    // (the second: the first pays for storage the next ones find written)
    assert.equal((await execute(probe)).status, 200)
    const second = await execute(probe)
    assert.equal(second.status, 200, second.text)
    const receipt = await createDevClients(
      devnet.anvil.rpcUrl,
      devnet.anvil.chainId,
    ).publicClient.getTransactionReceipt({ hash: second.body.transactionHash })
    const fee = Number(receipt.gasUsed * receipt.effectiveGasPrice)
    await probe.close()

    // A budget of ten executes per client; a rate limit far above what the test sends.
    const limits = {
      ...limitsConfig({}).value,
      maxRevertsPerSender: 0,
      maxRevertsPerClient: 0,
      targetMaxRevertShare: 0,
      gasBudgetPerClient: fee * 10 - 1,
    }
    for (const [i, key] of relayerKeys.entries()) {
      gateways.push(
        await startTestGateway({
          chains: [devnet.chain],
          relayerPrivateKey: key,
          limits,
          rateLimit: { max: 1_000, windowMs: 60_000 },
          storageOptions: { postgres: { url: database.url } },
          storage: {
            redisUrl: `redis://127.0.0.1:${link.port}`,
            redisPrefix: prefix,
            instanceId: `redis-down-${i}`,
            relayerLeaseTtlMs: 3_000,
          },
        }),
      )
    }
    const [a, b] = gateways as [TestGateway, TestGateway]
    // Each renews its lease every half second and sees the other live in the journal by then.
    await new Promise((r) => setTimeout(r, 1_500))
    // Both count one execute in Redis: two of ten spent.
    for (const g of [a, b]) assert.equal((await execute(g)).status, 200)

    link.cut()
    // Executes on one instance until it refuses: its own count since the cut, held to 5 (half of 10).
    const answers: number[] = []
    for (let i = 0; i < 12; i++) {
      const res = await execute(a)
      answers.push(res.status)
      if (res.status !== 200) {
        assert.equal(res.status, 429, res.text)
        assert.equal(res.body.type, 'urn:intent-gateway:problem:gas-budget-spent', 'the budget, not the rate limit')
        assert.match(res.body.detail, /Redis unreachable: counted by this instance alone, held to 1\/2 of the limit/)
        break
      }
    }
    // About five: the base fee falls on a quiet chain, so later executes cost a little less than the probe.
    const ran = answers.filter((s) => s === 200).length
    assert.equal(
      answers.at(-1),
      429,
      `refused once its half was spent (was: never refused while Redis was down): ${answers}`,
    )
    assert.ok(ran >= 4 && ran <= 7, `about half the budget's ten executes ran on this instance alone: ${ran}`)
    assert.ok(
      a.logs.some((l) => l.includes("standing and budgets are counted in this instance's memory")),
      'the instance says it counts alone',
    )

    link.heal()
    // Healed: the shared count holds the two before, and the five of the outage once written back: 7 of 10.
    await eventually('the outage counts written to Redis', 15_000, async () => {
      const res = await post(b.baseUrl, '/intents/validate', await signedIntent(devnet, { nonce: String(nonce++) }))
      if (res.status !== 200) return undefined
      const redis = new Redis(redisUrl)
      try {
        const keys = await redis.keys(`${prefix}limits:spend:client:*`)
        let total = 0
        for (const key of keys) for (const v of Object.values(await redis.hgetall(key))) total += Number(v)
        return total >= fee * 7 ? true : undefined
      } finally {
        redis.disconnect()
      }
    })
    // b, which saw nothing of the outage, has what the ten leave after the two before and the outage's.
    const after: number[] = []
    for (let i = 0; i < 10; i++) {
      const res = await execute(b)
      after.push(res.status)
      if (res.status !== 200) break
    }
    assert.equal(after.at(-1), 429, `${after}`)
    assert.ok(after.length - 1 <= 10 - 2 - ran + 1, `the shared budget counts the outage's ${ran}: ${after}`)
  })
})
