// Two gateway processes share one PostgreSQL journal and a pool of two relayer keys: each leases
// its share of the keys. One is killed with SIGKILL while its transactions are in flight; the
// other takes its key over when the lease ends, reconciles the records it left, and every intent
// is executed exactly once.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Hex, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { chainEnv, startGatewayProcess } from '../support/gatewayProcess.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import type { GatewayProcess } from '../support/runGateway.ts'
import { post, request, rpc, signedIntent } from '../support/testGateway.ts'

const mnemonic = 'test test test test test test test test test test test junk'
/** anvil's accounts 7 and 8: funded, used by nothing else in the devnet. */
const pool = [7, 8].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
const poolKeys = pool.map((a) => toHex(a.getHdKey().privateKey!))

describe('a relayer key pool leased to two instances, one killed with SIGKILL', () => {
  let devnet: Devnet
  let database: TestDatabase
  const running = new Set<GatewayProcess>()

  before(async () => {
    database = await createTestDatabase('takeover')
    devnet = await startDevnet({ blockTime: 1 })
  })
  after(async () => {
    for (const gw of running) gw.child.kill('SIGKILL')
    await devnet?.stop()
    await database?.drop()
  })

  it("splits the keys between the instances; the survivor takes the dead one's key over and finishes its work; each intent executes exactly once", async () => {
    const { RELAYER_PRIVATE_KEY: _, ...base } = chainEnv(devnet)
    const env = (id: string) => ({
      ...base,
      RELAYER_PRIVATE_KEYS: poolKeys.join(','),
      DATABASE_URL: database.url,
      INSTANCE_ID: id,
      RELAYER_LEASE_TTL_MS: '3000',
      RECONCILE_INTERVAL_MS: '300',
      RECEIPT_TIMEOUT_MS: '8000',
    })
    const a = await startGatewayProcess(env('a'))
    running.add(a.gw)
    const b = await startGatewayProcess(env('b'))
    running.add(b.gw)
    const heldBy = async (baseUrl: string) =>
      ((await request(baseUrl, '/chains/31337')).body.relayers as Array<{ address: string; held: boolean }>)
        .filter((r) => r.held)
        .map((r) => r.address)
    // Fair shares: one key each, once both instances have seen each other.
    const split = await eventually('one key each', 20_000, async () => {
      const [ha, hb] = [await heldBy(a.baseUrl), await heldBy(b.baseUrl)]
      return ha.length === 1 && hb.length === 1 && ha[0] !== hb[0] ? { a: ha[0]!, b: hb[0]! } : undefined
    })

    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const fromBlock = await publicClient.getBlockNumber()
    const bodies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signedIntent(devnet, { nonce: String(30_000 + i) })),
    )
    const hashes = await Promise.all(
      bodies.map(
        async (body) => (await post(b.baseUrl, '/intents/validate', body)).headers.get('x-intent-hash') as Hex,
      ),
    )
    const unmined = async (address: Hex) =>
      (await publicClient.getTransactionCount({ address, blockTag: 'pending' })) -
      (await publicClient.getTransactionCount({ address, blockTag: 'latest' }))
    // No block is mined until instance a is dead, so its transactions are surely in flight when it
    // dies (with blocks coming, a whole group broadcast just before one could mine between polls).
    await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [0])
    const first = bodies.map((body, i) =>
      post(i % 2 === 0 ? a.baseUrl : b.baseUrl, '/intents/execute', body).catch(() => undefined),
    )
    await eventually('instance a with transactions in flight', 20_000, async () =>
      (await unmined(split.a as Hex)) > 0 ? true : undefined,
    )
    a.gw.child.kill('SIGKILL')
    await a.gw.exit
    running.delete(a.gw)
    await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [1])
    await Promise.all(first)

    // The survivor takes the dead instance's key when its lease ends.
    await eventually('instance b holding both keys', 20_000, async () =>
      (await heldBy(b.baseUrl)).length === 2 ? true : undefined,
    )
    // The agents retry every intent on the survivor: each is executed, or already was.
    const retried = new Map<string, string>()
    for (const [i, body] of bodies.entries()) {
      const res = await post(b.baseUrl, '/intents/execute', body)
      retried.set(hashes[i]!, `${res.status} ${res.text.slice(0, 600)}`)
      // 409 0x22 only where reconciliation found the intent executed by a transaction it cannot
      // name (a record settled dropped, "executed by another transaction"): the chain answers.
      assert.ok(
        res.status === 200 || res.status === 202 || (res.status === 409 && res.body.erc1066Status === '0x22'),
        `${res.status} ${res.text}`,
      )
    }
    // What each instance logged of an intent, and its faults: a failure says how the record got where it is.
    const logsAbout = (hash: string) =>
      (
        [
          ['a', a.gw],
          ['b', b.gw],
        ] as const
      )
        .flatMap(([id, gw]) =>
          gw
            .stdout()
            .split('\n')
            .filter((l) => (l.includes(hash.slice(2)) && !l.includes('"method":"GET"')) || /"level":(40|50)/.test(l))
            .map((l) => `${id} ${l.replace(/Request body: \{.*?\}\\n/g, 'Request body: …\\n').slice(0, 1200)}`),
        )
        .join('\n')
    for (const hash of hashes) {
      let last = ''
      await eventually(`${hash} executed`, 30_000, async () => {
        const res = await request(b.baseUrl, `/intents/${hash}`)
        last = `${res.status} ${res.text}`
        // Settled from its own receipt (mined), or, rarely after a takeover, found executed on chain
        // by a transaction reconciliation cannot name (dropped, 0x22): the events below count it once.
        return (res.status === 200 && res.body.state === 'mined') ||
          (res.body.state === 'dropped' && res.body.erc1066Status === '0x22')
          ? true
          : undefined
      }).catch((err: Error) => {
        throw new Error(`${err.message}; retried: ${retried.get(hash)}; its record: ${last}\n${logsAbout(hash)}`)
      })
    }
    await eventually('no pending record left', 20_000, async () =>
      (await request(b.baseUrl, '/health')).body.journal.pendingExecutions === 0 ? true : undefined,
    )
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
    for (const hash of hashes)
      assert.equal(logs.filter((l) => l.args.intentHash === hash).length, 1, `${hash} executed exactly once`)
    const senders = new Set(
      await Promise.all(logs.map(async (l) => (await publicClient.getTransaction({ hash: l.transactionHash })).from)),
    )
    assert.deepEqual(
      [...senders].map((s) => s.toLowerCase()).sort(),
      [split.a, split.b].map((s) => s.toLowerCase()).sort(),
      'both keys sent',
    )
    b.gw.child.kill('SIGTERM')
    assert.equal(await b.gw.exit, 0)
    running.delete(b.gw)
  })
})
