// A fleet: three gateway processes on one PostgreSQL journal and one anvil, sharing a pool of
// relayer keys by lease. Each instance holds its share (⌊K/N⌋ or ⌈K/N⌉ of K keys); every intent,
// sent to two instances at once, runs in exactly one transaction and both requests are answered
// with its outcome, with no client retry; an instance without a key answers 503 (no-relayer-key)
// without claiming the intent; an instance that joins gets its share within a fraction of the TTL.
// FLEET_INTENTS sets the intents per run (the 300; default 60 to keep CI short).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Hex, parseEther, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { chainEnv, relayersHeld, startGatewayProcess } from '../support/gatewayProcess.ts'
import { priceOf } from '../support/paymentsWorld.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import type { GatewayProcess } from '../support/runGateway.ts'
import { type HttpResult, post, request, rpc, signedIntent, startTestGateway } from '../support/testGateway.ts'

const mnemonic = 'test test test test test test test test test test test junk'
/** Keys no other part of the devnet uses (anvil funds only the first ten accounts: these are funded by the test). */
const pool = [20, 21, 22, 23, 24].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
const poolKeys = pool.map((a) => toHex(a.getHdKey().privateKey!))
const intentsPerRun = Number(process.env.FLEET_INTENTS ?? 60)
const ttlMs = 3_000
const noRelayerKey = 'urn:intent-gateway:problem:no-relayer-key'

type Instance = { id: string; gw: GatewayProcess; baseUrl: string }
type Answer = {
  instance: string
  status: number
  replayed: boolean
  erc1066: string | null
  type: string | undefined
  text: string
}

describe('a fleet of gateway instances sharing relayer keys by lease', () => {
  let devnet: Devnet
  const databases: TestDatabase[] = []
  const running = new Set<GatewayProcess>()
  let nonceBase = 50_000

  before(async () => {
    devnet = await startDevnet({ blockTime: 1 })
    for (const account of pool)
      await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [account.address, toHex(parseEther('100'))])
  })
  after(async () => {
    for (const gw of running) gw.child.kill('SIGKILL')
    await devnet?.stop()
    for (const d of databases) await d.drop().catch(() => {})
  })

  const startInstance = async (database: TestDatabase, keys: Hex[], id: string): Promise<Instance> => {
    const { RELAYER_PRIVATE_KEY: _, ...base } = chainEnv(devnet)
    const { gw, baseUrl } = await startGatewayProcess({
      ...base,
      RELAYER_PRIVATE_KEYS: keys.join(','),
      DATABASE_URL: database.url,
      INSTANCE_ID: id,
      RELAYER_LEASE_TTL_MS: String(ttlMs),
      RECEIPT_TIMEOUT_MS: '60000',
      MAX_CONNECTIONS_PER_CLIENT: '10000',
    })
    running.add(gw)
    return { id, gw, baseUrl }
  }
  const stop = async (instances: Instance[]) => {
    for (const { id, gw } of instances) {
      if (process.env.FLEET_DEBUG)
        for (const line of gw
          .stdout()
          .split('\n')
          .filter((l) => /relayer|lease/.test(l)))
          console.log(`# ${id} ${line.slice(0, 300)}`)
      gw.child.kill('SIGTERM')
      await gw.exit
      running.delete(gw)
    }
  }
  const heldCounts = async (instances: Instance[]) =>
    Promise.all(instances.map(async (i) => (await relayersHeld(i.baseUrl)).length))
  const settled = (instances: Instance[], expected: number[], timeoutMs = 20_000) =>
    eventually(`shares ${expected.join('/')}`, timeoutMs, async () => {
      const held = await Promise.all(instances.map((i) => relayersHeld(i.baseUrl)))
      const all = held.flat()
      if (new Set(all).size !== all.length) throw new Error(`one key held by two instances: ${JSON.stringify(held)}`)
      return JSON.stringify(held.map((h) => h.length)) === JSON.stringify(expected) ? held : undefined
    })

  /**
   * `count` new intents, each sent to two instances at once (i and i + 1), and `alone[k]` more to
   * instance k only (it wins no race for them: each of its keys gets work even when its partners
   * win most races on a loaded machine): every answer, by intent hash.
   */
  const sendPairs = async (instances: Instance[], count: number, alone: number[] = []) => {
    const bodies = await Promise.all(
      Array.from({ length: count }, () => signedIntent(devnet, { nonce: String(nonceBase++) })),
    )
    const solo = await Promise.all(
      alone.flatMap((n, k) =>
        Array.from(
          { length: n },
          async () => [instances[k]!, await signedIntent(devnet, { nonce: String(nonceBase++) })] as const,
        ),
      ),
    )
    const ask = async (instance: Instance, body: unknown): Promise<[string, Answer]> => {
      const res: HttpResult = await post(instance.baseUrl, '/intents/execute', body)
      return [
        res.headers.get('x-intent-hash')!,
        {
          instance: instance.id,
          status: res.status,
          replayed: res.body?.replayed === true,
          erc1066: res.headers.get('x-erc1066-status'),
          type: res.body?.type,
          text: res.text.slice(0, 300),
        },
      ]
    }
    const answers = await Promise.all([
      ...bodies.flatMap((b, i) => [
        ask(instances[i % instances.length]!, b),
        ask(instances[(i + 1) % instances.length]!, b),
      ]),
      ...solo.map(([instance, b]) => ask(instance, b)),
    ])
    const byIntent = new Map<string, Answer[]>()
    for (const [hash, answer] of answers) byIntent.set(hash, [...(byIntent.get(hash) ?? []), answer])
    assert.equal(byIntent.size, count + solo.length)
    return byIntent
  }

  /** Exactly one transaction per intent since `fromBlock`, and no key left with a transaction unmined (no nonce gap). */
  const assertOnChain = async (hashes: string[], fromBlock: bigint, keysUsed: number) => {
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
    for (const hash of hashes)
      assert.equal(logs.filter((l) => l.args.intentHash === hash).length, 1, `${hash} executed exactly once`)
    const senders = new Set(
      await Promise.all(
        logs.map(async (l) => (await publicClient.getTransaction({ hash: l.transactionHash })).from.toLowerCase()),
      ),
    )
    assert.equal(senders.size, keysUsed, 'every key at work')
    for (const account of pool) {
      const [pending, latest] = await Promise.all([
        publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' }),
        publicClient.getTransactionCount({ address: account.address, blockTag: 'latest' }),
      ])
      assert.equal(pending, latest, `${account.address}: nothing stuck behind a nonce gap`)
    }
  }

  /**
   * One request sends the intent (200, not replayed), the other answers its outcome (200 or 202
   * replayed), or, from an instance with no key, 503 no-relayer-key. Never a 409, never a 503 from
   * an instance holding a key.
   */
  const assertAnswered = (byIntent: Map<string, Answer[]>, keyless: Set<string>) => {
    const sentBy = new Map<string, number>()
    for (const [hash, answered] of byIntent) {
      const what = `${hash}: ${JSON.stringify(answered)}`
      const sent = answered.filter((a) => a.status === 200 && !a.replayed)
      assert.equal(sent.length, 1, what)
      sentBy.set(sent[0]!.instance, (sentBy.get(sent[0]!.instance) ?? 0) + 1)
      for (const a of answered) {
        if (a.status === 200) assert.equal(a.erc1066, '0x11', what)
        else if (a.status === 202) assert.ok(a.replayed && a.erc1066 === '0xF3', what)
        else {
          assert.equal(a.status, 503, what)
          assert.ok(keyless.has(a.instance), `a 503 from an instance holding a key: ${what}`)
          assert.equal(a.type, noRelayerKey, what)
          assert.equal(a.erc1066, '0x40', what)
        }
      }
    }
    return sentBy
  }

  const run = async (keys: number, expected: number[]) => {
    const database = await createTestDatabase('fleet')
    databases.push(database)
    const ids = expected.map((_, i) => `fleet-${keys}-${i}`)
    const instances = await Promise.all(ids.map((id) => startInstance(database, poolKeys.slice(0, keys), id)))
    try {
      await settled(instances, expected)
      const keyless = new Set(instances.filter((_, i) => expected[i] === 0).map((i) => i.id))
      const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
      const fromBlock = await publicClient.getBlockNumber()
      const started = performance.now()
      // Twice as many intents as its keys to each instance alone, all at once: every key it holds sends.
      const byIntent = await sendPairs(
        instances,
        intentsPerRun,
        expected.map((held) => 2 * held),
      )
      const seconds = (performance.now() - started) / 1000
      const sentBy = assertAnswered(byIntent, keyless)
      // Every instance holding a key sent some; none without one did.
      assert.deepEqual(
        instances.map((i) => (sentBy.get(i.id) ?? 0) > 0),
        expected.map((s) => s > 0),
        JSON.stringify([...sentBy]),
      )
      await assertOnChain([...byIntent.keys()], fromBlock, keys)
      assert.deepEqual(await heldCounts(instances), expected, 'the shares held through the run')
      for (const i of instances) assert.equal((await request(i.baseUrl, '/health')).body.journal.pendingExecutions, 0)
      return { seconds, keyless: [...byIntent.values()].flat().filter((a) => a.status === 503).length }
    } finally {
      await stop(instances)
    }
  }

  it(`three instances, four keys: 2, 1 and 1 (never 2, 2, 0); ${intentsPerRun} intents each sent to two instances at once run once, both answered with the outcome`, async () => {
    const { seconds } = await run(4, [2, 1, 1])
    console.log(
      `# 4 keys, 3 instances: ${intentsPerRun} intents (${2 * intentsPerRun} requests) in ${seconds.toFixed(1)} s`,
    )
  })

  it(`three instances, five keys: 2, 2 and 1`, async () => {
    await run(5, [2, 2, 1])
  })

  it('three instances, two keys: the instance without one answers 503 no-relayer-key at once, claims nothing, and its partner sends', async () => {
    const { keyless } = await run(2, [1, 1, 0])
    assert.ok(keyless > 0, 'the keyless instance was asked and answered 503')
  })

  it('an instance that joins gets its share within a fraction of the TTL, while intents run', async () => {
    const database = await createTestDatabase('fleet_join')
    databases.push(database)
    const keys = poolKeys.slice(0, 4)
    const two = await Promise.all(['join-a', 'join-b'].map((id) => startInstance(database, keys, id)))
    const instances = [...two]
    try {
      await settled(two, [2, 2])
      const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
      const fromBlock = await publicClient.getBlockNumber()
      // Intents running while the third instance joins: the keys it takes are given back idle.
      const during = sendPairs(two, Math.max(20, intentsPerRun / 2))
      const third = await startInstance(database, keys, 'join-c')
      instances.push(third)
      const joined = performance.now()
      await settled(instances, [2, 1, 1], 10_000)
      const settleMs = performance.now() - joined
      console.log(`# join: shares 2/1/1 ${settleMs.toFixed(0)} ms after the third instance listened (TTL ${ttlMs} ms)`)
      assert.ok(settleMs < ttlMs, `settled in ${settleMs.toFixed(0)} ms, within the TTL`)
      const first = await during
      // Two more to the instance with two keys, one to each other (shares 2/1/1): every key sends
      // even when one instance wins most races on a loaded machine (a CI run saw 3 keys at work).
      const next = await sendPairs(instances, Math.max(20, intentsPerRun / 2), [2, 1, 1])
      assertAnswered(new Map([...first, ...next]), new Set())
      // The instance that joined sends from the key it took (asked alone: no partner to be quicker).
      const mine = (await relayersHeld(third.baseUrl))[0]
      const alone = await Promise.all(
        Array.from({ length: 3 }, async () =>
          post(third.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: String(nonceBase++) })),
        ),
      )
      for (const res of alone) {
        assert.equal(res.status, 200, res.text)
        assert.equal((await publicClient.getTransaction({ hash: res.body.transactionHash })).from.toLowerCase(), mine)
      }
      await assertOnChain(
        [...first.keys(), ...next.keys(), ...alone.map((r) => r.headers.get('x-intent-hash')!)],
        fromBlock,
        4,
      )
    } finally {
      await stop(instances)
    }
  })

  it('one in-process facilitator key per instance: a second instance on the same database with the same FACILITATOR_PRIVATE_KEY is warned at start-up, naming the holder (a production gateway reports it as a configuration problem)', async () => {
    const database = await createTestDatabase('fleet_facilitator')
    databases.push(database)
    const chainId = `eip155:${devnet.anvil.chainId}`
    const payments = {
      prices: { [chainId]: { execute: priceOf(devnet) } },
      priceApiKeyClients: false,
      facilitator: { kind: 'local' as const, privateKey: devnetAccounts.facilitator },
    }
    const start = (instanceId: string) =>
      startTestGateway({
        chains: [devnet.chain],
        payments,
        storageOptions: { postgres: { url: database.url } },
        storage: { redisUrl: undefined, instanceId, relayerLeaseTtlMs: 1_000 },
      })
    const first = await start('pay-a')
    try {
      const second = await start('pay-b')
      try {
        const warned = second.logs
          .map((l) => JSON.parse(l) as { level: number; msg: string })
          .filter((l) => l.level === 40 && l.msg.startsWith('FACILITATOR_PRIVATE_KEY: its account'))
        assert.equal(warned.length, 1, second.logs.join('\n'))
        assert.match(
          warned[0]!.msg,
          /in use by another live instance \(pay-a\) sharing this database; two instances settling with one key collide on its nonce/,
        )
        assert.ok(!first.logs.some((l) => l.includes('FACILITATOR_PRIVATE_KEY: its account')))
      } finally {
        await second.close()
      }
    } finally {
      await first.close()
    }
  })
})
